extension ConcurrentOperation {
  /// The operation's lifecycle as a value type. Each event returns what to do once the lock is
  /// released: resume waiters, stop the work, tell the queue. Nothing here calls out.
  struct StateMachine {
    enum Phase {
      /// Not yet started by a queue.
      case pending
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
      var waiters: [OperationWaiter<Value, Failure>] = []
      var outcome: OperationOutcome<Value, Failure>?
      var stopWork = false
      /// When the queue started the operation, for event durations.
      var startedAt: ContinuousClock.Instant?
      var queueNotification = QueueNotification.none
    }

    /// What `start()` must do.
    enum StartAction {
      /// Started twice or after finishing: do nothing.
      case ignore
      /// Settled before the queue started it (cancelled, say): report finished without running.
      case finishWithoutRunning
      /// Report executing and call `main()`.
      case run(timeout: Duration?)
    }

    /// What happened when a waiter asked to leave.
    enum Departure {
      /// The waiter was not in the list: the operation has settled and resumed it (or will).
      case alreadyResumed
      /// The waiter left and must be resumed by the caller; `cancelOperation` is true when
      /// nobody is left who wants the value.
      case left(OperationWaiter<Value, Failure>, cancelOperation: Bool)
    }

    private(set) var phase = Phase.pending
    private(set) var outcome: OperationOutcome<Value, Failure>?
    private(set) var isCancelled = false
    private var waiters:
      [(id: OperationWaiter<Value, Failure>.ID, waiter: OperationWaiter<Value, Failure>)] = []
    private var nextWaiterID: OperationWaiter<Value, Failure>.ID = 0
    /// Set once a caller that never leaves (a completion handler, a plain enqueue) took an
    /// interest: from then on, waiters leaving never cancel the operation.
    private var hasPermanentInterest = false
    private var isEnqueued = false
    private var startedAt: ContinuousClock.Instant?
    var timeout: Duration?
    weak var observer: (any OperationLifecycleObserver)?

    /// How many callers are waiting.
    var waiterCount: Int { waiters.count }

    /// Records that a manager enqueues the operation; false if it was enqueued or ran before.
    mutating func claimForEnqueue(observer: (any OperationLifecycleObserver)?) -> Bool {
      guard phase == .pending, !isEnqueued else { return false }
      isEnqueued = true
      self.observer = observer
      return true
    }

    mutating func start() -> StartAction {
      guard phase == .pending else { return .ignore }
      if outcome != nil {
        phase = .finished
        return .finishWithoutRunning
      }
      phase = .executing
      startedAt = .now
      return .run(timeout: timeout)
    }

    /// The work ended (called by the subclass through `finish`). A second call is a no-op.
    mutating func finish(with result: OperationOutcome<Value, Failure>) -> Effects {
      var effects = Effects()
      if outcome == nil {
        effects = settle(result)
      }
      if phase == .executing {
        phase = .finished
        effects.queueNotification = .finishedFromExecuting
      }
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
      return effects
    }

    /// Adds a waiter to work that is still open. Returns nil (and adds nothing) when the
    /// operation is cancelled or settled: such work is never joined.
    mutating func join(
      _ waiter: OperationWaiter<Value, Failure>?, leavesEarly: Bool
    ) -> OperationWaiter<Value, Failure>.ID? {
      guard outcome == nil, !isCancelled else { return nil }
      return append(waiter, leavesEarly: leavesEarly)
    }

    /// Adds a waiter; if the operation has settled already, returns the outcome to deliver now.
    mutating func addWaiter(
      _ waiter: OperationWaiter<Value, Failure>, leavesEarly: Bool
    ) -> (id: OperationWaiter<Value, Failure>.ID?, settled: OperationOutcome<Value, Failure>?) {
      if let outcome { return (nil, outcome) }
      return (append(waiter, leavesEarly: leavesEarly), nil)
    }

    /// Removes a waiter that no longer wants the value.
    mutating func removeWaiter(_ id: OperationWaiter<Value, Failure>.ID) -> Departure {
      guard let index = waiters.lastIndex(where: { $0.id == id }) else { return .alreadyResumed }
      let waiter = waiters.remove(at: index).waiter
      return .left(waiter, cancelOperation: waiters.isEmpty && !hasPermanentInterest)
    }

    private mutating func append(
      _ waiter: OperationWaiter<Value, Failure>?, leavesEarly: Bool
    ) -> OperationWaiter<Value, Failure>.ID {
      if !leavesEarly { hasPermanentInterest = true }
      let id = nextWaiterID
      nextWaiterID &+= 1
      if let waiter { waiters.append((id, waiter)) }
      return id
    }

    private mutating func settle(_ result: OperationOutcome<Value, Failure>) -> Effects {
      outcome = result
      var effects = Effects()
      effects.outcome = result
      effects.startedAt = startedAt
      effects.waiters = waiters.map(\.waiter)
      waiters.removeAll()
      return effects
    }
  }
}
