/// An operation's lifecycle as values: where it stands with its queue (``Slot``), who waits for
/// its outcome (``Delivery``), and whether its events go out yet (``Announcement``). Each input
/// is one exhaustive switch that returns one action; nothing here calls out.
///
/// The operation performs an action's side effects after releasing its lock, except the
/// lifecycle event an action carries: that one is published while the lock is still held, so
/// one operation's events reach subscribers in the order they were decided here.
///
/// Not generic: the operation's value is stored type-erased (``ErasedOutcome``), so this code is
/// compiled once and runs without looking up generic metadata, which Foundation's dynamic calls
/// into a generic `Operation` subclass would otherwise do many times per operation.
struct OperationStateMachine {
  /// Where the operation stands with its queue.
  enum Slot {
    /// Not started by a queue; `claimed` once a manager admitted it (it is never admitted
    /// twice).
    case pending(claimed: Bool)
    /// Started by its queue while an outcome fixed before the start is still being handed to
    /// waiters: reported finished when that delivery ends, so "finished" implies "delivered".
    case startedDuringDelivery
    /// Started; `main()` has been or is being called.
    case executing(since: ClockInstant)
    /// Reported finished to the queue.
    case finished
  }

  /// Who waits for the outcome, or the outcome once it is fixed.
  enum Delivery {
    /// No outcome yet. `keepsAlive` once a waiter that never leaves came (a completion handler,
    /// a plain enqueue): from then on, waiters leaving never cancel the operation.
    case open(WaiterList, nextID: OperationWaiter.ID, keepsAlive: Bool)
    /// The outcome was fixed before the queue started the operation, and the thread that fixed
    /// it is still handing it to waiters. `cancelled`: see ``settled(_:cancelled:)``.
    case deliveringBeforeStart(ErasedOutcome, cancelled: Bool)
    /// The outcome is fixed. `cancelled` when the operation was cancelled (or timed out)
    /// before it finished, whatever the outcome.
    case settled(ErasedOutcome, cancelled: Bool)
    /// Transient, inside one input only: keeps the waiter list uniquely referenced while it is
    /// changed, so adding or removing a waiter never copies it.
    case modifying
  }

  /// Whether the operation's lifecycle events go out yet, to its ``eventAudience``.
  enum Announcement {
    /// Nobody subscribed to the manager's events when it claimed the operation (or no manager
    /// did): it publishes nothing.
    case silent
    /// A manager claimed the operation and has not yet added it to its queue: `enqueued` and
    /// the events decided meanwhile (`later`, usually none) wait here, to go out in order once
    /// it has.
    case awaitingEnqueue(enqueued: LifecycleEvent, later: [LifecycleEvent])
    /// `enqueued` is out: events go out as they are decided.
    case announced
  }

  /// One lifecycle event, before the operation turns it into an ``OperationEvent`` for its
  /// ``eventAudience``.
  struct LifecycleEvent {
    let kind: OperationEvent.Kind
    let waiterCount: Int
    var duration: Duration? = nil

    /// Whether this is the operation's last event (`finished`).
    var isTerminal: Bool {
      if case .finished = kind { true } else { false }
    }
  }

  /// What happens after delivering an outcome.
  enum AfterDelivery {
    /// Nothing: the operation stays executing until the subclass calls `finish`.
    case nothing
    /// Report the operation finished to its queue.
    case reportFinished
    /// Report the delivery's end (``deliveryEnded()``): the queue may have started the
    /// operation meanwhile, and must then be told it finished.
    case reportDeliveryEnd
  }

  /// An outcome to hand to waiters, outside the lock.
  struct Delivered {
    let waiters: WaiterList
    let outcome: ErasedOutcome
    /// Whether started work must be told to stop (cancellation or timeout).
    let stopsWork: Bool
    let then: AfterDelivery
    /// The terminal event, to publish under the lock.
    let event: LifecycleEvent?
  }

  /// What an input asks the operation to do once its lock is released.
  enum Action {
    case none
    /// Hand an outcome to waiters, then as `then` says.
    case deliver(Delivered)
    /// Report the operation finished to its queue (its outcome was delivered before).
    case reportFinished

    /// The event to publish under the lock, if any.
    var event: LifecycleEvent? {
      switch self {
      case .deliver(let delivered): delivered.event
      case .none, .reportFinished: nil
      }
    }
  }

  /// What `start()` must do.
  enum StartAction {
    /// Started twice, after finishing, or while an earlier outcome is delivered (the
    /// delivering thread reports the finish): nothing.
    case none
    /// Settled before the queue started it: report finished without running.
    case reportFinished
    /// Publish `event` (under the lock), then call `main()` and arm the timeout if any.
    case run(timeout: Duration?, event: LifecycleEvent?)
  }

  /// The result of a manager claiming the operation for its queue.
  enum Claim {
    /// Claimed before (by this manager or another) or already started: the caller must not
    /// add it to a queue.
    case alreadyClaimed
    /// Claimed; the waiter, if any, is registered with `waiterID`. `announces` when the
    /// operation publishes its lifecycle: the caller calls ``enqueued()`` once it is queued.
    case claimed(waiterID: OperationWaiter.ID?, announces: Bool)
    /// Claimed, but it settled before: hand `outcome` to the waiter at once. The queue still
    /// gets it, to start and finish it without running.
    case claimedSettled(ErasedOutcome, announces: Bool)
  }

  /// The result of a request joining the operation.
  enum Join {
    /// Joined; `event` is the `joined` event to publish under the lock.
    case joined(waiterID: OperationWaiter.ID?, event: LifecycleEvent?)
    /// Cancelled or settled: such work is never joined.
    case closed
  }

  /// The result of adding a waiter to an operation regardless of its state.
  enum Addition {
    case added(waiterID: OperationWaiter.ID)
    /// Already settled: hand it `outcome` at once.
    case settled(ErasedOutcome)
  }

  /// What happened when a waiter asked to leave.
  enum Departure {
    /// The waiter was not in the list: the operation has settled and resumed it (or will).
    case alreadyResumed
    /// The waiter left and must be resumed by the caller. `cancellation` when nobody is left
    /// who wants the value: the operation was cancelled in the same step (``cancel(finishIfExecuting:)``),
    /// and this is that input's action, for the caller to carry out.
    case left(OperationWaiter, cancellation: Action?)
  }

  private(set) var slot = Slot.pending(claimed: false)
  private(set) var delivery = Delivery.open(WaiterList(), nextID: 0, keepsAlive: false)
  private var announcement = Announcement.silent
  /// Who sees the operation's events: the manager's subscribers when it claimed the operation
  /// (set then, once), so subscribers that came later never see half a lifecycle; nil when
  /// nobody subscribed, and again once the terminal event is out (see
  /// ``takeEventAudience()``).
  private(set) var eventAudience: EventAudience?
  /// Configuration, not state: how long the operation may execute.
  var timeout: Duration?
  /// The manager that claimed the operation; nil before.
  weak var observer: (any OperationLifecycleObserver)?

  /// The current instant on the clock of the manager that claimed the operation (the
  /// continuous clock's when none did), which event durations are measured on.
  private var now: ClockInstant { (observer?.scheduler ?? .continuous).now }

  // MARK: Reading

  /// How many waiters wait for the outcome now; 0 once it is fixed.
  var waiterCount: Int {
    switch delivery {
    case .open(let waiters, _, _): waiters.count
    case .deliveringBeforeStart, .settled, .modifying: 0
    }
  }

  var isExecuting: Bool {
    switch slot {
    case .executing: true
    case .pending, .startedDuringDelivery, .finished: false
    }
  }

  var isFinished: Bool {
    switch slot {
    case .finished: true
    case .pending, .startedDuringDelivery, .executing: false
    }
  }

  var isCancelled: Bool {
    switch delivery {
    case .open: false
    case .deliveringBeforeStart(_, let cancelled), .settled(_, let cancelled): cancelled
    case .modifying: preconditionFailure("read while modifying")
    }
  }

  /// The outcome, once fixed.
  var outcome: ErasedOutcome? {
    switch delivery {
    case .open: nil
    case .deliveringBeforeStart(let outcome, _), .settled(let outcome, _): outcome
    case .modifying: preconditionFailure("read while modifying")
    }
  }

  /// Whether a manager claimed the operation or a queue started it.
  var isClaimed: Bool {
    switch slot {
    case .pending(let claimed): claimed
    case .startedDuringDelivery, .executing, .finished: true
    }
  }

  // MARK: The queue

  /// A manager claims the operation for its queue and registers the first waiter in the same
  /// step, so nobody can join, leave and cancel in between. With an `audience` (the manager's
  /// subscribers, when anybody subscribes), the operation publishes its whole lifecycle, from
  /// `enqueued` on, to them; without, nothing.
  mutating func claim(
    by observer: any OperationLifecycleObserver, waiter: OperationWaiter?,
    audience: EventAudience?
  ) -> Claim {
    switch slot {
    case .pending(claimed: false):
      slot = .pending(claimed: true)
      self.observer = observer
      let waiterCount = waiter == nil ? 0 : 1
      switch delivery {
      case .open:
        if let audience {
          let enqueued = LifecycleEvent(kind: .enqueued, waiterCount: waiterCount)
          announcement = .awaitingEnqueue(enqueued: enqueued, later: [])
          eventAudience = audience
        }
        return .claimed(waiterID: add(waiter).id, announces: audience != nil)
      case .deliveringBeforeStart(let outcome, _), .settled(let outcome, _):
        // Settled before it was enqueued: its terminal event follows `enqueued`.
        if let audience {
          let enqueued = LifecycleEvent(kind: .enqueued, waiterCount: waiterCount)
          let finished = LifecycleEvent(
            kind: .finished(outcome.completion), waiterCount: waiterCount)
          announcement = .awaitingEnqueue(enqueued: enqueued, later: [finished])
          eventAudience = audience
        }
        return .claimedSettled(outcome, announces: audience != nil)
      case .modifying:
        preconditionFailure("claimed while modifying")
      }
    case .pending(claimed: true), .startedDuringDelivery, .executing, .finished:
      return .alreadyClaimed
    }
  }

  /// The manager added the operation to its queue: returns `enqueued` and the events decided
  /// since the claim, in order, to publish under the lock.
  mutating func enqueued() -> (enqueued: LifecycleEvent, later: [LifecycleEvent]) {
    // Swapped out, then consumed: the waiting events move, where binding them in place copied
    // them through run-time value witnesses and destroyed the originals.
    var waiting = Announcement.announced
    swap(&waiting, &announcement)
    switch consume waiting {
    case .awaitingEnqueue(let enqueued, let later):
      return (enqueued, later)
    case .silent, .announced:
      preconditionFailure("announced an operation that was not claimed, or twice")
    }
  }

  mutating func start() -> StartAction {
    // Nested switches rather than one over `(slot, delivery)`: a tuple of the two would copy
    // the waiter list on every input.
    switch slot {
    case .pending:
      switch delivery {
      case .open:
        slot = .executing(since: now)
        // Counted only for an operation that publishes its events.
        let waiting = eventAudience == nil ? 0 : waiterCount
        return .run(timeout: timeout, event: record(.started, waiterCount: waiting))
      case .deliveringBeforeStart:
        slot = .startedDuringDelivery
        return .none
      case .settled:
        slot = .finished
        return .reportFinished
      case .modifying:
        preconditionFailure("started while modifying")
      }
    case .startedDuringDelivery, .executing, .finished:
      return .none
    }
  }

  /// The work this dropped operation follows settled with `outcome`: the operation takes it
  /// and is finished in the same step, so a request for it from now on gets that outcome at
  /// once. Unless a manager claimed it since (it was enqueued again): its queue runs it then,
  /// for an outcome of its own. One settled already (cancelled, say) is left to
  /// ``finishUnclaimed()``.
  mutating func followedWorkSettled(with outcome: ErasedOutcome) -> Action {
    guard case .pending(claimed: false) = slot, case .open = delivery else { return .none }
    let waiters = takeOpen().waiters
    delivery = .settled(outcome, cancelled: outcome.isCancellation)
    slot = .finished
    return .deliver(
      Delivered(
        waiters: waiters, outcome: outcome, stopsWork: false, then: .reportFinished,
        event: record(.finished(outcome.completion), waiterCount: waiters.count)))
  }

  /// A dropped operation that took the outcome of the work it followed finishes as `start()`
  /// would finish it, unless a manager claimed it since: its queue will start it then, and only
  /// the queue may. True when it should be reported finished now.
  mutating func finishUnclaimed() -> Bool {
    guard case .pending(claimed: false) = slot else { return false }
    switch delivery {
    case .settled:
      slot = .finished
      return true
    case .deliveringBeforeStart:
      // Reported finished when that delivery ends.
      slot = .startedDuringDelivery
      return false
    case .open:
      // Not settled: nothing to finish with.
      return false
    case .modifying:
      preconditionFailure("finished while modifying")
    }
  }

  /// The work ended (the subclass called `finish`). A second call only releases the slot of
  /// an operation that stayed executing after its cancellation.
  mutating func finish(with outcome: ErasedOutcome) -> Action {
    switch delivery {
    case .open:
      switch slot {
      case .pending:
        return settleBeforeStart(
          outcome, waiters: takeOpen().waiters, cancelled: outcome.isCancellation)
      case .executing(let since):
        let waiters = takeOpen().waiters
        delivery = .settled(outcome, cancelled: outcome.isCancellation)
        slot = .finished
        return settle(
          outcome, waiters: waiters, since: since, stopsWork: false, then: .reportFinished)
      case .startedDuringDelivery, .finished:
        preconditionFailure("an open operation cannot have been reported finished")
      }
    case .deliveringBeforeStart:
      return .none
    case .settled:
      switch slot {
      case .executing:
        // Cancelled with `finishesImmediatelyWhenCancelled == false`: the work has stopped.
        slot = .finished
        return .reportFinished
      case .pending, .startedDuringDelivery, .finished:
        return .none
      }
    case .modifying:
      preconditionFailure("finished while modifying")
    }
  }

  /// Cancellation was requested. Waiters get `CancellationError` at once; an executing
  /// operation is told to stop its work and, if `finishIfExecuting`, reported finished. A
  /// pending operation is never reported finished here: its queue must start it first.
  mutating func cancel(finishIfExecuting: Bool) -> Action {
    switch delivery {
    case .open:
      switch slot {
      case .pending:
        return settleBeforeStart(.cancelled, waiters: takeOpen().waiters, cancelled: true)
      case .executing(let since):
        let waiters = takeOpen().waiters
        delivery = .settled(.cancelled, cancelled: true)
        if finishIfExecuting { slot = .finished }
        return settle(
          .cancelled, waiters: waiters, since: since, stopsWork: true,
          then: finishIfExecuting ? .reportFinished : .nothing)
      case .startedDuringDelivery, .finished:
        preconditionFailure("an open operation cannot have been reported finished")
      }
    case .deliveringBeforeStart(let outcome, _):
      delivery = .deliveringBeforeStart(outcome, cancelled: true)
      return .none
    case .settled(let outcome, _):
      switch slot {
      case .pending, .executing, .startedDuringDelivery:
        // Settled but not finished: `isCancelled` turns true, as `Operation.cancel()` promises.
        delivery = .settled(outcome, cancelled: true)
        return .none
      case .finished:
        return .none
      }
    case .modifying:
      preconditionFailure("cancelled while modifying")
    }
  }

  /// The timeout expired: waiters get the timeout error, the work is told to stop, and the
  /// queue slot is released.
  mutating func timeOut(_ error: OperationTimeoutError) -> Action {
    switch delivery {
    case .open:
      switch slot {
      case .executing(let since):
        let waiters = takeOpen().waiters
        delivery = .settled(.timedOut(error), cancelled: true)
        slot = .finished
        return settle(
          .timedOut(error), waiters: waiters, since: since, stopsWork: true,
          then: .reportFinished)
      case .pending, .startedDuringDelivery, .finished:
        return .none
      }
    case .deliveringBeforeStart, .settled:
      return .none
    case .modifying:
      preconditionFailure("timed out while modifying")
    }
  }

  /// Delivery of an outcome fixed before the start has ended; true when the queue started the
  /// operation meanwhile and it must now be reported finished.
  mutating func deliveryEnded() -> Bool {
    guard case .deliveringBeforeStart(let outcome, let cancelled) = delivery else {
      preconditionFailure("a delivery ended that had not begun")
    }
    delivery = .settled(outcome, cancelled: cancelled)
    switch slot {
    case .startedDuringDelivery:
      slot = .finished
      return true
    case .pending:
      return false
    case .executing, .finished:
      preconditionFailure("started while delivering, but not marked so")
    }
  }

  /// A `stalled` event to publish, if the operation is still executing without an outcome.
  func stalled(after threshold: Duration) -> LifecycleEvent? {
    switch (delivery, slot, announcement) {
    case (.open, .executing, .announced):
      LifecycleEvent(kind: .stalled, waiterCount: waiterCount, duration: threshold)
    default:
      nil
    }
  }

  /// The audience of the terminal event, taken out: nothing follows that event, and an
  /// operation its caller keeps must not keep its subscribers' buffers.
  mutating func takeEventAudience() -> EventAudience? {
    eventAudience.take()
  }

  /// The audience of a `retrying` event, if one may go out: the operation is announced and
  /// still executing without an outcome.
  var retryAudience: EventAudience? {
    switch (delivery, slot, announcement) {
    case (.open, .executing, .announced): eventAudience
    default: nil
    }
  }

  // MARK: Waiters

  /// Adds a waiter to work that is still open (nil registers an interest that never leaves).
  /// Cancelled or settled work is never joined.
  mutating func join(_ waiter: OperationWaiter?) -> Join {
    switch delivery {
    case .open:
      let (id, waiterCount) = add(waiter)
      return .joined(waiterID: id, event: record(.joined, waiterCount: waiterCount))
    case .deliveringBeforeStart, .settled:
      return .closed
    case .modifying:
      preconditionFailure("joined while modifying")
    }
  }

  /// Adds a waiter whatever the state; if the operation has settled, returns the outcome to
  /// hand it at once.
  mutating func addWaiter(_ waiter: OperationWaiter) -> Addition {
    switch delivery {
    case .open:
      // A non-nil waiter always gets an identity.
      return .added(waiterID: add(waiter).id ?? 0)
    case .deliveringBeforeStart(let outcome, _), .settled(let outcome, _):
      return .settled(outcome)
    case .modifying:
      preconditionFailure("added a waiter while modifying")
    }
  }

  /// Removes a waiter that no longer wants the value. When it was the last one and no waiter
  /// that never leaves came, the operation is cancelled in the same step: between the two, a
  /// request could join work that is about to be cancelled, and get its cancellation.
  mutating func removeWaiter(_ id: OperationWaiter.ID, finishIfExecuting: Bool) -> Departure {
    switch delivery {
    case .open:
      var (waiters, nextID, keepsAlive) = takeOpen()
      let waiter = waiters.remove(id: id)
      let wantedByNobody = waiters.isEmpty && !keepsAlive
      delivery = .open(waiters, nextID: nextID, keepsAlive: keepsAlive)
      guard let waiter else { return .alreadyResumed }
      guard wantedByNobody else { return .left(waiter, cancellation: nil) }
      return .left(waiter, cancellation: cancel(finishIfExecuting: finishIfExecuting))
    case .deliveringBeforeStart, .settled:
      return .alreadyResumed
    case .modifying:
      preconditionFailure("removed a waiter while modifying")
    }
  }

  // MARK: Helpers

  /// Moves the open delivery's parts out, leaving `.modifying` until the caller stores a
  /// delivery again. Moved, not copied: the waiter list stays uniquely referenced, and no copy
  /// of it is made and destroyed.
  private mutating func takeOpen() -> (
    waiters: WaiterList, nextID: OperationWaiter.ID, keepsAlive: Bool
  ) {
    var taken = Delivery.modifying
    swap(&taken, &delivery)
    guard case .open(let waiters, let nextID, let keepsAlive) = consume taken else {
      preconditionFailure("took the waiters of work that is not open")
    }
    return (waiters, nextID, keepsAlive)
  }

  /// Registers `waiter` on open work; returns its identity (nil for a nil waiter, which only
  /// marks an interest that never leaves) and how many waiters the work has now.
  private mutating func add(_ waiter: OperationWaiter?) -> (id: OperationWaiter.ID?, count: Int) {
    var (waiters, nextID, keepsAlive) = takeOpen()
    var id: OperationWaiter.ID?
    if let waiter {
      waiters.append(waiter, id: nextID)
      id = nextID
      if case .untilSettled = waiter.interest { keepsAlive = true }
    } else {
      keepsAlive = true
    }
    if id != nil { nextID &+= 1 }
    delivery = .open(waiters, nextID: nextID, keepsAlive: keepsAlive)
    return (id, waiters.count)
  }

  /// Returns the event to publish now, or keeps it until the operation is in its queue. With
  /// `since`, the event's duration runs from then. Builds nothing for a silent operation.
  private mutating func record(
    _ kind: OperationEvent.Kind, waiterCount: Int, since: ClockInstant? = nil
  ) -> LifecycleEvent? {
    switch announcement {
    case .silent:
      return nil
    case .awaitingEnqueue:
      // Moved out, so `later` stays uniquely referenced while it grows.
      var taken = Announcement.silent
      swap(&taken, &announcement)
      guard case .awaitingEnqueue(let enqueued, var later) = consume taken else {
        preconditionFailure("the announcement changed while an event was recorded")
      }
      later.append(
        LifecycleEvent(kind: kind, waiterCount: waiterCount, duration: since.map { now - $0 }))
      announcement = .awaitingEnqueue(enqueued: enqueued, later: later)
      return nil
    case .announced:
      return LifecycleEvent(kind: kind, waiterCount: waiterCount, duration: since.map { now - $0 })
    }
  }

  private mutating func settleBeforeStart(
    _ outcome: ErasedOutcome, waiters: WaiterList, cancelled: Bool
  ) -> Action {
    delivery = .deliveringBeforeStart(outcome, cancelled: cancelled)
    let event = record(.finished(outcome.completion), waiterCount: waiters.count)
    return .deliver(
      Delivered(
        waiters: waiters, outcome: outcome, stopsWork: false, then: .reportDeliveryEnd,
        event: event))
  }

  private mutating func settle(
    _ outcome: ErasedOutcome, waiters: WaiterList, since: ClockInstant, stopsWork: Bool,
    then: AfterDelivery
  ) -> Action {
    let event = record(.finished(outcome.completion), waiterCount: waiters.count, since: since)
    return .deliver(
      Delivered(waiters: waiters, outcome: outcome, stopsWork: stopsWork, then: then, event: event))
  }
}
