/// An operation's lifecycle as a value type. Each event returns what to do once the lock is
/// released: resume waiters, stop the work, tell the queue. Nothing here calls out.
///
/// Not generic: the operation's value is stored type-erased (``ErasedOutcome``), so this code is
/// compiled once and runs without looking up generic metadata, which Foundation's dynamic calls
/// into a generic `Operation` subclass would otherwise do many times per operation.
struct OperationStateMachine {
  enum Phase {
    /// Not yet started by a queue.
    case pending
    /// Started by its queue after settling, while the outcome is still being delivered:
    /// reported finished once delivery ends, so "finished" implies "delivered".
    case startedDuringDelivery
    /// Started; `main()` has been or is being called.
    case executing
    /// Reported finished to the queue.
    case finished
  }

  /// What the queue must be told after an event.
  enum QueueNotification {
    case none
    /// `isExecuting` became false and `isFinished` true.
    case finishedFromExecuting
  }

  /// Side effects of an event, performed by the caller after the lock is released.
  struct Effects {
    var waiters = WaiterList()
    var outcome: ErasedOutcome?
    var stopWork = false
    /// When the queue started the operation, for event durations.
    var startedAt: MonotonicInstant?
    /// The operation settled before its queue started it: after delivering, the caller must
    /// report `deliveryEnded()`, in case the queue started it meanwhile.
    var reportsDeliveryEnd = false
    var queueNotification = QueueNotification.none
  }

  /// What `start()` must do.
  enum StartAction {
    /// Started twice or after finishing: do nothing.
    case ignore
    /// Settled before the queue started it (cancelled, say): report finished without running.
    case finishWithoutRunning
    /// Settled before the queue started it and still delivering: the delivering thread
    /// reports finished when it is done.
    case finishAfterDelivery
    /// Report executing, announce the start (then perform ``startAnnounced()``'s effects) and
    /// call `main()`.
    case run(timeout: Duration?)
  }

  /// What happened when a waiter asked to leave.
  enum Departure {
    /// The waiter was not in the list: the operation has settled and resumed it (or will).
    case alreadyResumed
    /// The waiter left and must be resumed by the caller; `cancelOperation` is true when
    /// nobody is left who wants the value.
    case left(OperationWaiter, cancelOperation: Bool)
  }

  private(set) var phase = Phase.pending
  private(set) var outcome: ErasedOutcome?
  private(set) var isCancelled = false
  private var waiters = WaiterList()
  private var nextWaiterID: OperationWaiter.ID = 0
  /// True while an outcome reached before the start is being delivered.
  private var isDeliveringBeforeStart = false
  /// Set once a caller that never leaves (a completion handler, a plain enqueue) took an
  /// interest: from then on, waiters leaving never cancel the operation.
  private var hasPermanentInterest = false
  private var isEnqueued = false
  /// True from the start until its `started` event is out. Events meanwhile keep their effects
  /// in `effectsAwaitingStart`, so nobody sees the operation settle or finish before it started.
  private var isAnnouncingStart = false
  private var effectsAwaitingStart: [Effects] = []
  private var startedAt: MonotonicInstant?
  var timeout: Duration?
  weak var observer: (any OperationLifecycleObserver)?

  /// How many callers are waiting.
  var waiterCount: Int { waiters.count }

  /// The result of claiming the operation for a queue.
  enum Claim {
    /// Enqueued or started before: the caller must not add it to a queue.
    case rejected
    /// Claimed; the waiter (if any) was added, or must be handed `settled` at once.
    case claimed(id: OperationWaiter.ID?, settled: ErasedOutcome?)
  }

  /// Claims the operation for one queue and registers the first waiter in the same step, so
  /// nobody can join, leave and cancel in between.
  mutating func claimForEnqueue(
    observer: (any OperationLifecycleObserver)?,
    waiter: OperationWaiter?,
    leavesEarly: Bool
  ) -> Claim {
    guard phase == .pending, !isEnqueued else { return .rejected }
    isEnqueued = true
    self.observer = observer
    if let outcome { return .claimed(id: nil, settled: outcome) }
    return .claimed(id: append(waiter, leavesEarly: leavesEarly), settled: nil)
  }

  mutating func start() -> StartAction {
    guard phase == .pending else { return .ignore }
    if outcome != nil {
      if isDeliveringBeforeStart {
        phase = .startedDuringDelivery
        return .finishAfterDelivery
      }
      phase = .finished
      return .finishWithoutRunning
    }
    phase = .executing
    startedAt = .now
    isAnnouncingStart = true
    return .run(timeout: timeout)
  }

  /// The start was announced; returns the effects of events that came meanwhile, in order
  /// (nil when none did, as nearly always).
  mutating func startAnnounced() -> [Effects]? {
    isAnnouncingStart = false
    guard !effectsAwaitingStart.isEmpty else { return nil }
    defer { effectsAwaitingStart = [] }
    return effectsAwaitingStart
  }

  /// The work ended (called by the subclass through `finish`). A second call is a no-op.
  mutating func finish(with result: ErasedOutcome) -> Effects {
    var effects = Effects()
    if outcome == nil {
      effects = settle(result)
    }
    if phase == .executing {
      phase = .finished
      effects.queueNotification = .finishedFromExecuting
    }
    waitForStartAnnouncement(&effects)
    return effects
  }

  /// Cancellation was requested. Waiters get `CancellationError` at once; an executing
  /// operation is told to stop its work and, if `finishIfExecuting`, reported finished.
  /// A pending operation is never reported finished here: its queue must start it first.
  mutating func cancel(finishIfExecuting: Bool) -> Effects {
    guard phase != .finished, !isCancelled else { return Effects() }
    isCancelled = true
    guard outcome == nil else { return Effects() }
    var effects = settle(.cancelled)
    if phase == .executing {
      effects.stopWork = true
      if finishIfExecuting {
        phase = .finished
        effects.queueNotification = .finishedFromExecuting
      }
    }
    waitForStartAnnouncement(&effects)
    return effects
  }

  /// The timeout expired while executing: waiters get the timeout error, the work is told to
  /// stop, and the queue slot is released.
  mutating func timeOut(_ error: OperationTimeoutError) -> Effects {
    guard phase == .executing, outcome == nil else { return Effects() }
    isCancelled = true
    var effects = settle(.timedOut(error))
    effects.stopWork = true
    phase = .finished
    effects.queueNotification = .finishedFromExecuting
    waitForStartAnnouncement(&effects)
    return effects
  }

  /// Delivery of an outcome reached before the start has ended; true when the queue started
  /// the operation meanwhile and it must now be reported finished.
  mutating func deliveryEnded() -> Bool {
    isDeliveringBeforeStart = false
    guard phase == .startedDuringDelivery else { return false }
    phase = .finished
    return true
  }

  /// Adds a waiter to work that is still open. Returns nil (and adds nothing) when the
  /// operation is cancelled or settled: such work is never joined.
  mutating func join(
    _ waiter: OperationWaiter?, leavesEarly: Bool
  ) -> OperationWaiter.ID? {
    guard outcome == nil, !isCancelled else { return nil }
    return append(waiter, leavesEarly: leavesEarly)
  }

  /// Adds a waiter; if the operation has settled already, returns the outcome to deliver now.
  mutating func addWaiter(
    _ waiter: OperationWaiter, leavesEarly: Bool
  ) -> (id: OperationWaiter.ID?, settled: ErasedOutcome?) {
    if let outcome { return (nil, outcome) }
    return (append(waiter, leavesEarly: leavesEarly), nil)
  }

  /// Removes a waiter that no longer wants the value.
  mutating func removeWaiter(_ id: OperationWaiter.ID) -> Departure {
    guard let waiter = waiters.remove(id: id) else { return .alreadyResumed }
    return .left(waiter, cancelOperation: waiters.isEmpty && !hasPermanentInterest)
  }

  private mutating func append(
    _ waiter: OperationWaiter?, leavesEarly: Bool
  ) -> OperationWaiter.ID {
    if !leavesEarly { hasPermanentInterest = true }
    let id = nextWaiterID
    nextWaiterID &+= 1
    if let waiter {
      waiters.append(waiter, id: id)
    }
    return id
  }

  /// While the start is being announced, hands `effects` to the starting thread, which
  /// performs them once its `started` event is out, and leaves none for the caller.
  private mutating func waitForStartAnnouncement(_ effects: inout Effects) {
    guard isAnnouncingStart else { return }
    effectsAwaitingStart.append(effects)
    effects = Effects()
  }

  private mutating func settle(_ result: ErasedOutcome) -> Effects {
    outcome = result
    var effects = Effects()
    effects.outcome = result
    effects.startedAt = startedAt
    if phase == .pending {
      isDeliveringBeforeStart = true
      effects.reportsDeliveryEnd = true
    }
    // Moved, not copied: settling is on every operation's hot path.
    effects.waiters = waiters
    waiters = WaiterList()
    return effects
  }
}
