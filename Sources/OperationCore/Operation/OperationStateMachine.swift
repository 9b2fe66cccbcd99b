import Foundation

/// An operation's lifecycle as one value (``Lifecycle``), whose cases carry what each stage
/// needs, so a combination that cannot happen cannot be written. Each input is one exhaustive
/// switch that returns one ``Action``; nothing here calls out.
///
/// The operation performs an action's side effects once its lock is unlocked, except the
/// lifecycle events an action carries: those are published while the lock is still held, so
/// one operation's events reach subscribers in the order they were decided here.
///
/// Not generic: the operation's value is stored type-erased (``ErasedOutcome``), so this code is
/// compiled once and runs without looking up generic metadata, which Foundation's dynamic calls
/// into a generic `Operation` subclass would otherwise do many times per operation.
struct OperationStateMachine {
  /// Where the operation stands: with its queue, and with the callers waiting for its outcome.
  enum Lifecycle {
    /// Not started by a queue, no outcome yet. `claimed` once a manager admitted it (it is
    /// never admitted twice).
    case pending(Waiters, claimed: Bool)
    /// Started by its queue, no outcome yet: `main()` has been or is being called. `since` is
    /// when it started, for an operation that publishes its events (the origin otherwise).
    case executing(Waiters, since: ClockInstant)
    /// Settled before its queue started it; the settling thread is still handing the outcome
    /// to the waiters. `started` once the queue started it meanwhile: that thread releases it
    /// when the delivery ends, so "released" implies "delivered".
    case deliveringBeforeStart(Settlement, claimed: Bool, started: Bool)
    /// Settled before its queue started it, outcome delivered: released when its queue starts
    /// it, never before (swift-corelibs-foundation's queue hangs on an operation that reports
    /// itself finished before it started it).
    case settledBeforeStart(Settlement, claimed: Bool)
    /// Cancelled while executing, for a subclass that keeps its queue slot until it calls
    /// `finish` after stopping its work. Its outcome is cancellation.
    case stopping
    /// Released: reported finished to its queue.
    case released(Settlement)
    /// Transient, inside one input only: keeps the waiter list uniquely referenced while it is
    /// changed, so adding or removing a waiter never copies it.
    case modifying
  }

  private(set) var lifecycle = Lifecycle.pending(Waiters(), claimed: false)
  private var announcement = Announcement.silent
  /// Configuration, not state: how long the operation may execute.
  var timeout: Duration?
  /// The scheduler entry of the linger under way, once armed; the next caller disarms it, and
  /// so does settling. Beside the lifecycle rather than with its waiters, which every await
  /// moves: it is read only when a caller joins open work and when the work settles.
  private var lingerTimer: UInt64?
  /// The manager that claimed the operation; nil before.
  weak var manager: (any ClaimingManager)?

  /// The current instant on the clock of the manager that claimed the operation (the
  /// continuous clock's when none did), which event durations are measured on.
  private var now: ClockInstant { (manager?.scheduler ?? .continuous).now }

  // MARK: Reading

  /// How many callers wait for the outcome now; 0 once it is fixed.
  var callerCount: Int {
    switch lifecycle {
    case .pending(let waiters, _), .executing(let waiters, _): waiters.list.count
    case .deliveringBeforeStart, .settledBeforeStart, .stopping, .released, .modifying: 0
    }
  }

  var isExecuting: Bool {
    switch lifecycle {
    case .executing, .stopping: true
    case .pending, .deliveringBeforeStart, .settledBeforeStart, .released, .modifying: false
    }
  }

  var isFinished: Bool {
    switch lifecycle {
    case .released: true
    case .pending, .executing, .deliveringBeforeStart, .settledBeforeStart, .stopping,
      .modifying:
      false
    }
  }

  var isCancelled: Bool {
    switch lifecycle {
    case .pending, .executing, .modifying: false
    case .deliveringBeforeStart(let settlement, _, _), .settledBeforeStart(let settlement, _),
      .released(let settlement):
      settlement.cancelled
    case .stopping: true
    }
  }

  /// The outcome, once fixed.
  var outcome: ErasedOutcome? {
    switch lifecycle {
    case .pending, .executing, .modifying: nil
    case .deliveringBeforeStart(let settlement, _, _), .settledBeforeStart(let settlement, _),
      .released(let settlement):
      settlement.outcome
    case .stopping: .cancelled
    }
  }

  /// Whether a manager claimed the operation or a queue started it.
  var isClaimedOrStarted: Bool {
    switch lifecycle {
    case .pending(_, let claimed), .settledBeforeStart(_, let claimed): claimed
    case .deliveringBeforeStart(_, let claimed, let started): claimed || started
    case .executing, .stopping, .released, .modifying: true
    }
  }

  /// Who sees the operation's events now: nil while it is silent or not yet announced.
  var eventAudience: EventAudience? {
    if case .announced(let audience) = announcement { audience } else { nil }
  }

  /// Whether events go out as they are decided (the `enqueued` event is out and the terminal
  /// one is not): only then does an input's action carry events.
  var isAnnounced: Bool {
    if case .announced = announcement { true } else { false }
  }

  /// The audience of a `retrying` event, if one may go out: the operation is announced and
  /// still executing without an outcome.
  var retryAudience: EventAudience? {
    guard case .executing = lifecycle else { return nil }
    return eventAudience
  }

  // MARK: The queue
  //
  // Each input switches on the stored lifecycle in place, binding trivial payloads only, and
  // moves the waiters out (``takeWaiters()``) only in the branches that change them: a
  // lifecycle bound or switched on as a whole value is copied and destroyed through run-time
  // value witnesses.

  /// A manager claims the operation for its queue and registers the first waiter in the same
  /// step, so nobody can join, leave and cancel in between. With an `audience` (the manager's
  /// subscribers, when anybody subscribes), the operation publishes its whole lifecycle, from
  /// `enqueued` on, to them; without, nothing: subscribers that came later never see half a
  /// lifecycle.
  ///
  /// `priority` is the request's, which the manager sets as the operation's queue priority
  /// before anybody can join it: from then on, the operation's priority follows its callers.
  mutating func claim(
    by manager: any ClaimingManager, waiter: OperationWaiter?,
    priority: PriorityLevel, whenAbandoned policy: AbandonmentPolicy,
    audience: EventAudience?
  ) -> Action {
    let callerCount = waiter == nil ? 0 : 1
    switch lifecycle {
    case .pending(_, claimed: false):
      var waiters = takeWaiters()
      let id = Self.add(waiter, priority: priority, to: &waiters, whenAbandoned: policy)
      waiters.priority = priority
      lifecycle = .pending(consume waiters, claimed: true)
      self.manager = manager
      announce(to: audience, callerCount: callerCount, settled: nil)
      return .registered(waiterID: id, announces: audience != nil, event: nil)
    case .deliveringBeforeStart(let settlement, claimed: false, started: false):
      lifecycle = .deliveringBeforeStart(settlement, claimed: true, started: false)
      return claimSettled(settlement, by: manager, audience: audience, callerCount: callerCount)
    case .settledBeforeStart(let settlement, claimed: false):
      lifecycle = .settledBeforeStart(settlement, claimed: true)
      return claimSettled(settlement, by: manager, audience: audience, callerCount: callerCount)
    case .pending, .executing, .deliveringBeforeStart, .settledBeforeStart, .stopping, .released:
      // Claimed before (here or by another manager), or started.
      return .refused
    case .modifying:
      preconditionFailure("claimed while modifying")
    }
  }

  /// The manager added the operation to its queue: `enqueued` and the events decided since
  /// the claim, in order.
  mutating func enqueued() -> Action {
    // Swapped out, then consumed: the waiting events move, where binding them in place copied
    // them through run-time value witnesses and destroyed the originals.
    var waiting = Announcement.silent
    swap(&waiting, &announcement)
    switch consume waiting {
    case .awaitingEnqueue(let audience, let enqueued, let later):
      announcement = .announced(audience)
      return .announce(enqueued: enqueued, later: later)
    case let other:
      announcement = other
      return .none
    }
  }

  /// The queue starts the operation.
  mutating func start() -> Action {
    switch lifecycle {
    case .pending:
      let waiters = takeWaiters()
      // Counted, and the clock read, only for an operation that publishes its events: the
      // start instant measures nothing but the `finished` event's duration.
      let silent = isSilent
      let waiting = silent ? 0 : waiters.list.count
      lifecycle = .executing(waiters, since: silent ? ClockInstant(sinceOrigin: .zero) : now)
      return .run(timeout: timeout, event: record(.started, callerCount: waiting))
    case .deliveringBeforeStart(let settlement, let claimed, _):
      // The delivering thread releases it once the delivery ends.
      lifecycle = .deliveringBeforeStart(settlement, claimed: claimed, started: true)
      return .none
    case .settledBeforeStart(let settlement, _):
      lifecycle = .released(settlement)
      return .release
    case .executing, .stopping, .released:
      // Started twice, or after its release.
      return .none
    case .modifying:
      preconditionFailure("started while modifying")
    }
  }

  /// The work this dropped operation follows settled with `outcome`. A dropped operation is
  /// in no queue: it takes the outcome, unless it settled already (cancelled, say), and is
  /// released in the same step, so a request for it from now on gets that outcome at once.
  /// Unless a manager claimed it since (it was enqueued again): its queue then starts it, and
  /// only its queue may release it.
  mutating func followedWorkSettled(with outcome: ErasedOutcome) -> Action {
    switch lifecycle {
    case .pending(_, claimed: false):
      let waiters = takeWaiters().list
      lifecycle = .released(Settlement(outcome))
      let event = record(.finished(outcome.completion), callerCount: waiters.count)
      return .deliver(
        Delivery(waiters: waiters, outcome: outcome, stopsWork: false, then: .release),
        event: event)
    case .settledBeforeStart(let settlement, claimed: false):
      lifecycle = .released(settlement)
      return .release
    case .deliveringBeforeStart(let settlement, claimed: false, _):
      // Released by the delivering thread, as if its queue had started it.
      lifecycle = .deliveringBeforeStart(settlement, claimed: false, started: true)
      return .none
    case .pending, .executing, .deliveringBeforeStart, .settledBeforeStart, .stopping, .released:
      return .none
    case .modifying:
      preconditionFailure("followed work settled while modifying")
    }
  }

  /// The work ended (the subclass called `finish`). A second call only releases an operation
  /// that kept its slot after its cancellation.
  mutating func finish(with outcome: ErasedOutcome) -> Action {
    switch lifecycle {
    case .pending(_, let claimed):
      return settleBeforeStart(Settlement(outcome), waiters: takeWaiters().list, claimed: claimed)
    case .executing(_, let since):
      let settlement = Settlement(outcome)
      let waiters = exchangeWaiters(for: .released(settlement)).list
      return settle(settlement, waiters: waiters, since: since, stopsWork: false, then: .release)
    case .stopping:
      // The work has stopped after its cancellation.
      lifecycle = .released(Settlement(.cancelled))
      return .release
    case .deliveringBeforeStart, .settledBeforeStart, .released:
      return .none
    case .modifying:
      preconditionFailure("finished while modifying")
    }
  }

  /// Cancellation was requested. Waiters get `CancellationError` at once; an executing
  /// operation is told to stop its work and, if `releaseIfExecuting`, released. An operation
  /// its queue has not started is never released here: its queue must start it first.
  mutating func cancel(releaseIfExecuting: Bool) -> Action {
    switch lifecycle {
    case .pending(_, let claimed):
      return settleBeforeStart(
        Settlement(.cancelled), waiters: takeWaiters().list, claimed: claimed)
    case .executing(_, let since):
      let waiters = takeWaiters().list
      let settlement = Settlement(.cancelled)
      lifecycle = releaseIfExecuting ? .released(settlement) : .stopping
      return settle(
        settlement, waiters: waiters, since: since, stopsWork: true,
        then: releaseIfExecuting ? .release : .nothing)
    case .deliveringBeforeStart(var settlement, let claimed, let started):
      // Settled but not released: `isCancelled` turns true, as `Operation.cancel()` promises.
      settlement.cancelled = true
      lifecycle = .deliveringBeforeStart(settlement, claimed: claimed, started: started)
      return .none
    case .settledBeforeStart(var settlement, let claimed):
      settlement.cancelled = true
      lifecycle = .settledBeforeStart(settlement, claimed: claimed)
      return .none
    case .stopping, .released:
      return .none
    case .modifying:
      preconditionFailure("cancelled while modifying")
    }
  }

  /// The timeout expired: waiters get the timeout error, the work is told to stop, and the
  /// operation is released.
  mutating func timeOut(_ error: OperationTimeoutError) -> Action {
    guard case .executing(_, let since) = lifecycle else { return .none }
    let waiters = takeWaiters().list
    // A timeout counts as a cancellation (`isCancelled`).
    let settlement = Settlement(.timedOut(error))
    lifecycle = .released(settlement)
    return settle(settlement, waiters: waiters, since: since, stopsWork: true, then: .release)
  }

  /// The delivery of an outcome fixed before the start has ended: released now if its queue
  /// started it meanwhile, else when its queue does.
  mutating func deliveryEnded() -> Action {
    switch lifecycle {
    case .deliveringBeforeStart(let settlement, _, started: true):
      lifecycle = .released(settlement)
      return .release
    case .deliveringBeforeStart(let settlement, let claimed, started: false):
      lifecycle = .settledBeforeStart(settlement, claimed: claimed)
      return .none
    case .pending, .executing, .settledBeforeStart, .stopping, .released:
      return .none
    case .modifying:
      preconditionFailure("delivery ended while modifying")
    }
  }

  /// The stall threshold passed: a `stalled` event, if the operation is still executing
  /// without an outcome and announced.
  func stalled(after threshold: Duration) -> Action {
    guard case .executing = lifecycle, eventAudience != nil else { return .none }
    return .publish(DecidedEvent(kind: .stalled, callerCount: callerCount, duration: threshold))
  }

  /// The audience of the terminal event, taken out: nothing follows that event, and an
  /// operation its caller keeps must not keep its subscribers' buffers.
  mutating func takeEventAudience() -> EventAudience? {
    guard case .announced(let audience) = announcement else { return nil }
    announcement = .silent
    return audience
  }

  // MARK: Waiters

  /// Adds a waiter to work that is still open (nil registers an interest that never leaves),
  /// with the request's dropped operation, if any, as a follower; `policy` is the waiter's
  /// for when every caller has left, `priority` what it asks of the queue (for a nil waiter,
  /// it counts as long as the work is open). Cancelled or settled work is never joined; work
  /// that lingers is, and then waits for its callers again.
  mutating func join(
    _ waiter: OperationWaiter?, follower: AnyObject?, priority: PriorityLevel,
    whenAbandoned policy: AbandonmentPolicy
  ) -> Action {
    register(
      waiter, follower: follower, priority: priority, publishing: true, whenAbandoned: policy)
  }

  /// Adds a waiter whatever the state, asking for `priority`; if the operation has settled,
  /// the outcome to hand it at once.
  mutating func addWaiter(
    _ waiter: OperationWaiter, priority: PriorityLevel, whenAbandoned policy: AbandonmentPolicy
  ) -> Action {
    if let outcome { return .resumeAtOnce(outcome, announces: false) }
    return register(
      waiter, follower: nil, priority: priority, publishing: false, whenAbandoned: policy)
  }

  /// Removes a waiter that no longer wants the value. When it was the last caller and the
  /// work's callers asked for nothing else (``AbandonmentPolicy/cancel``), the operation is
  /// cancelled in the same step: between the two, a request could join work that is about to
  /// be cancelled, and get its cancellation. Work its callers asked to keep goes on: to its
  /// end, or lingering until ``lingerEnded(_:releaseIfExecuting:)``.
  mutating func removeWaiter(_ id: OperationWaiter.ID, releaseIfExecuting: Bool) -> Action {
    switch lifecycle {
    case .pending(_, let claimed):
      var waiters = takeWaiters()
      let waiter = waiters.list.remove(id: id)
      guard let waiter, waiters.list.isEmpty, waiters.cancelsWhenAbandoned else {
        let linger = waiter == nil ? nil : Self.linger(of: waiters)
        lifecycle = .pending(waiters, claimed: claimed)
        return waiter.map { .left($0, cancellation: nil, event: nil, linger: linger) } ?? .none
      }
      let (cancellation, event) = Self.delivery(
        of: settleBeforeStart(Settlement(.cancelled), waiters: waiters.list, claimed: claimed))
      return .left(waiter, cancellation: cancellation, event: event, linger: nil)
    case .executing(_, let since):
      var waiters = takeWaiters()
      let waiter = waiters.list.remove(id: id)
      guard let waiter, waiters.list.isEmpty, waiters.cancelsWhenAbandoned else {
        let linger = waiter == nil ? nil : Self.linger(of: waiters)
        lifecycle = .executing(waiters, since: since)
        return waiter.map { .left($0, cancellation: nil, event: nil, linger: linger) } ?? .none
      }
      let (cancellation, event) = Self.delivery(
        of: cancelAbandoned(waiters, since: since, releaseIfExecuting: releaseIfExecuting))
      return .left(waiter, cancellation: cancellation, event: event, linger: nil)
    case .deliveringBeforeStart, .settledBeforeStart, .stopping, .released:
      // Settled: the operation has resumed the waiter, or will.
      return .none
    case .modifying:
      preconditionFailure("a waiter left while modifying")
    }
  }

  // MARK: Priority
  //
  // The work's queue priority is the highest among its callers still waiting (and requests
  // that never leave). Each input that changes who waits, or what one asks for, is followed,
  // under the same lock, by ``reprioritize()``, which decides the new priority, if any.

  /// The waiter `id`'s caller was escalated to `priority`: its entry asks for that from now
  /// on, if it asked for less. Returns whether it did.
  mutating func escalateWaiter(_ id: OperationWaiter.ID, to priority: PriorityLevel) -> Bool {
    switch lifecycle {
    case .pending(_, let claimed):
      var waiters = takeWaiters()
      let escalated = waiters.list.escalate(id: id, to: priority)
      lifecycle = .pending(waiters, claimed: claimed)
      return escalated
    case .executing(_, let since):
      var waiters = takeWaiters()
      let escalated = waiters.list.escalate(id: id, to: priority)
      lifecycle = .executing(waiters, since: since)
      return escalated
    case .deliveringBeforeStart, .settledBeforeStart, .stopping, .released:
      return false
    case .modifying:
      preconditionFailure("escalated while modifying")
    }
  }

  /// Whether an escalation of a caller registered at `level` can change anything for the work:
  /// decided as the caller registers, so that one whose escalation cannot installs no escalation
  /// handler. An escalated caller asks for at most ``PriorityLevel/high`` (the level of every
  /// task priority above medium), so nothing changes when the caller asks for that much already:
  /// its entry never rises. Once the queue has started the work, its queue priority orders
  /// nothing: only work that `passesPriorityOn` to what it runs still follows its callers then.
  /// Reads the lifecycle's case only, never its waiters, which would be moved or copied.
  func escalationCanMatter(forCallerAt level: PriorityLevel, passesPriorityOn: Bool) -> Bool {
    guard level < .high else { return false }
    switch lifecycle {
    case .pending: return true
    case .executing: return passesPriorityOn
    case .deliveringBeforeStart, .settledBeforeStart, .stopping, .released: return false
    case .modifying: preconditionFailure("read while modifying")
    }
  }

  /// A request that never leaves, with no waiter of its own, asks for `priority` while the
  /// work is open.
  mutating func keep(_ priority: PriorityLevel) {
    switch lifecycle {
    case .pending(_, let claimed):
      var waiters = takeWaiters()
      waiters.kept = max(waiters.kept, priority)
      lifecycle = .pending(waiters, claimed: claimed)
    case .executing(_, let since):
      var waiters = takeWaiters()
      waiters.kept = max(waiters.kept, priority)
      lifecycle = .executing(waiters, since: since)
    case .deliveringBeforeStart, .settledBeforeStart, .stopping, .released:
      return
    case .modifying:
      preconditionFailure("kept while modifying")
    }
  }

  /// The new queue priority of claimed, open work, if its effective priority is no longer the
  /// one last asked of the queue: up when a caller asking for more joined or was escalated,
  /// down when the most urgent caller left. None while no caller states a priority: the
  /// operation keeps the one it has.
  mutating func reprioritize() -> PriorityChange? {
    switch lifecycle {
    case .pending(_, claimed: true):
      var waiters = takeWaiters()
      let change = Self.reprioritize(&waiters, whileExecuting: false)
      lifecycle = .pending(waiters, claimed: true)
      return change
    case .executing(_, let since):
      var waiters = takeWaiters()
      let change = Self.reprioritize(&waiters, whileExecuting: true)
      lifecycle = .executing(waiters, since: since)
      return change
    case .pending, .deliveringBeforeStart, .settledBeforeStart, .stopping, .released:
      // Unclaimed work has no queue yet (its claim sets the priority); settled work needs none.
      return nil
    case .modifying:
      preconditionFailure("reprioritized while modifying")
    }
  }

  private static func reprioritize(
    _ waiters: inout Waiters, whileExecuting: Bool
  ) -> PriorityChange? {
    let effective = waiters.effectivePriority
    guard effective != waiters.priority, let priority = effective.queuePriority else { return nil }
    waiters.priority = effective
    waiters.priorityVersion &+= 1
    return PriorityChange(
      priority: priority, version: waiters.priorityVersion, whileExecuting: whileExecuting)
  }

  /// The timer of the linger that began with `token` is armed as `entry`: kept, for the next
  /// caller to disarm, while the linger is still under way. Returns false when a caller came
  /// (or the work settled) meanwhile: the timer is stale, to be taken out of the scheduler.
  mutating func lingerArmed(_ entry: UInt64, token: OperationWaiter.ID) -> Bool {
    let underWay: Bool
    switch lifecycle {
    case .pending(_, let claimed):
      let waiters = takeWaiters()
      underWay = waiters.isStillAbandoned(since: token)
      lifecycle = .pending(waiters, claimed: claimed)
    case .executing(_, let since):
      let waiters = takeWaiters()
      underWay = waiters.isStillAbandoned(since: token)
      lifecycle = .executing(waiters, since: since)
    case .deliveringBeforeStart, .settledBeforeStart, .stopping, .released:
      underWay = false
    case .modifying:
      preconditionFailure("a linger was armed while modifying")
    }
    if underWay { lingerTimer = entry }
    return underWay
  }

  /// The linger that began with `token` has run out: the work is cancelled if nobody came
  /// meanwhile, as if its last caller had just left with ``AbandonmentPolicy/cancel``.
  mutating func lingerEnded(_ token: OperationWaiter.ID, releaseIfExecuting: Bool) -> Action {
    switch lifecycle {
    case .pending(_, let claimed):
      let waiters = takeWaiters()
      guard waiters.isStillAbandoned(since: token) else {
        lifecycle = .pending(waiters, claimed: claimed)
        return .none
      }
      return settleBeforeStart(Settlement(.cancelled), waiters: waiters.list, claimed: claimed)
    case .executing(_, let since):
      let waiters = takeWaiters()
      guard waiters.isStillAbandoned(since: token) else {
        lifecycle = .executing(waiters, since: since)
        return .none
      }
      return cancelAbandoned(waiters, since: since, releaseIfExecuting: releaseIfExecuting)
    case .deliveringBeforeStart, .settledBeforeStart, .stopping, .released:
      return .none
    case .modifying:
      preconditionFailure("a linger ended while modifying")
    }
  }

  // MARK: Helpers

  /// Whether the operation publishes nothing (now, or ever).
  private var isSilent: Bool {
    if case .silent = announcement { true } else { false }
  }

  /// Moves the waiters of open work out, leaving `.modifying` until the caller stores the next
  /// stage. Moved, not copied: the waiter list stays uniquely referenced, and no copy of it is
  /// made and destroyed.
  private mutating func takeWaiters() -> Waiters {
    exchangeWaiters(for: .modifying)
  }

  /// Stores `next` in place of open work's lifecycle and returns its waiters, moved out of
  /// the one it replaces: one swap, with nothing left behind to destroy. Each pattern binds one
  /// case of the consumed value, so the payload moves.
  private mutating func exchangeWaiters(for next: consuming Lifecycle) -> Waiters {
    swap(&next, &lifecycle)
    switch consume next {
    case .pending(let waiters, _), .executing(let waiters, _):
      return waiters
    case .deliveringBeforeStart, .settledBeforeStart, .stopping, .released, .modifying:
      preconditionFailure("took the waiters of work that is not open")
    }
  }

  /// Registers `waiter` (and `follower`) on open work, with a `joined` event if `publishing`;
  /// refused once the outcome is fixed.
  private mutating func register(
    _ waiter: OperationWaiter?, follower: AnyObject?, priority: PriorityLevel, publishing: Bool,
    whenAbandoned policy: AbandonmentPolicy
  ) -> Action {
    switch lifecycle {
    case .pending(_, let claimed):
      var waiters = takeWaiters()
      let id = Self.add(waiter, priority: priority, to: &waiters, whenAbandoned: policy)
      if lingerTimer != nil { disarmLinger() }
      if let follower { waiters.list.appendFollower(follower) }
      let count = waiters.list.count
      lifecycle = .pending(waiters, claimed: claimed)
      let event = publishing ? record(.joined, callerCount: count) : nil
      return .registered(waiterID: id, announces: false, event: event)
    case .executing(_, let since):
      var waiters = takeWaiters()
      let id = Self.add(waiter, priority: priority, to: &waiters, whenAbandoned: policy)
      if lingerTimer != nil { disarmLinger() }
      if let follower { waiters.list.appendFollower(follower) }
      let count = waiters.list.count
      lifecycle = .executing(waiters, since: since)
      let event = publishing ? record(.joined, callerCount: count) : nil
      return .registered(waiterID: id, announces: false, event: event)
    case .deliveringBeforeStart, .settledBeforeStart, .stopping, .released:
      return .refused
    case .modifying:
      preconditionFailure("registered while modifying")
    }
  }

  /// Registers `waiter` on open work, asking for `priority`; returns its identity (nil for a
  /// nil waiter, which only marks an interest that never leaves, and its priority). A caller
  /// that may leave adds its `policy` to the work's; one that never leaves keeps the work to
  /// its end.
  private static func add(
    _ waiter: OperationWaiter?, priority: PriorityLevel, to waiters: inout Waiters,
    whenAbandoned policy: AbandonmentPolicy
  ) -> OperationWaiter.ID? {
    guard let waiter else {
      waiters.whenAbandoned = .finish
      waiters.kept = max(waiters.kept, priority)
      return nil
    }
    let id = waiters.nextID
    waiters.list.append(waiter, id: id, priority: priority)
    waiters.nextID &+= 1
    switch waiter.interest {
    case .untilSettled:
      waiters.whenAbandoned = .finish
    case .untilLeaving:
      // The common policy, cancel, asks for nothing.
      if case .cancel = policy { break }
      waiters.whenAbandoned = policy.keepingLonger(than: waiters.whenAbandoned)
    case .onlyNotified:
      break
    }
    return id
  }

  /// A caller came to lingering work, or it settled: its timer is taken out of the manager's
  /// scheduler, whose lock comes after the operation's in the lock order (see `Locked`).
  private mutating func disarmLinger() {
    guard let entry = lingerTimer else { return }
    lingerTimer = nil
    (manager?.scheduler ?? .continuous).cancel(entry)
  }

  /// The linger to arm now that the last caller of `waiters` left, if the work is kept for a
  /// while (not to its end, nor cancelled at once) and no caller waits.
  private static func linger(of waiters: borrowing Waiters) -> Linger? {
    guard waiters.list.isEmpty, let duration = waiters.whenAbandoned.lingerDuration else {
      return nil
    }
    return Linger(duration: duration, token: waiters.nextID)
  }

  /// Cancels executing work nobody waits for any more (its waiters taken out): only followers
  /// are left to be told.
  private mutating func cancelAbandoned(
    _ waiters: consuming Waiters, since: ClockInstant, releaseIfExecuting: Bool
  ) -> Action {
    let settlement = Settlement(.cancelled)
    lifecycle = releaseIfExecuting ? .released(settlement) : .stopping
    return settle(
      settlement, waiters: waiters.list, since: since, stopsWork: true,
      then: releaseIfExecuting ? .release : .nothing)
  }

  /// Starts announcing to `audience` (if any): `enqueued`, then, for an operation that settled
  /// before it was claimed, its terminal event, once the manager has queued it.
  private mutating func announce(
    to audience: EventAudience?, callerCount: Int, settled: Settlement?
  ) {
    guard let audience else { return }
    let enqueued = DecidedEvent(kind: .enqueued, callerCount: callerCount)
    var later: [DecidedEvent] = []
    if let settled {
      later.append(
        DecidedEvent(kind: .finished(settled.outcome.completion), callerCount: callerCount))
    }
    announcement = .awaitingEnqueue(audience, enqueued: enqueued, later: later)
  }

  private mutating func claimSettled(
    _ settlement: Settlement, by manager: any ClaimingManager,
    audience: EventAudience?, callerCount: Int
  ) -> Action {
    self.manager = manager
    announce(to: audience, callerCount: callerCount, settled: settlement)
    return .resumeAtOnce(settlement.outcome, announces: audience != nil)
  }

  /// Returns the event to publish now, or keeps it until the operation is in its queue. With
  /// `since`, the event's duration runs from then. Builds nothing for a silent operation.
  @inline(__always)
  private mutating func record(
    _ kind: DecidedEvent.Kind, callerCount: Int, since: ClockInstant? = nil
  ) -> DecidedEvent? {
    if case .silent = announcement { return nil }
    return recordAnnounced(kind, callerCount: callerCount, since: since)
  }

  /// ``record(_:callerCount:since:)`` for an operation that publishes its events.
  private mutating func recordAnnounced(
    _ kind: DecidedEvent.Kind, callerCount: Int, since: ClockInstant?
  ) -> DecidedEvent? {
    switch announcement {
    case .silent:
      return nil
    case .awaitingEnqueue:
      // Moved out, so `later` stays uniquely referenced while it grows.
      var taken = Announcement.silent
      swap(&taken, &announcement)
      guard case .awaitingEnqueue(let audience, let enqueued, var later) = consume taken else {
        return nil
      }
      later.append(
        DecidedEvent(kind: kind, callerCount: callerCount, duration: since.map { now - $0 }))
      announcement = .awaitingEnqueue(audience, enqueued: enqueued, later: later)
      return nil
    case .announced:
      return DecidedEvent(kind: kind, callerCount: callerCount, duration: since.map { now - $0 })
    }
  }

  /// Settles an operation its queue has not started (its waiters taken out): the outcome is
  /// delivered now, and the operation released once both the delivery ended and its queue
  /// started it.
  private mutating func settleBeforeStart(
    _ settlement: Settlement, waiters: WaiterList, claimed: Bool
  ) -> Action {
    lifecycle = .deliveringBeforeStart(settlement, claimed: claimed, started: false)
    if lingerTimer != nil { disarmLinger() }  // Nothing is left to cancel when it runs out.
    let event = record(.finished(settlement.outcome.completion), callerCount: waiters.count)
    return .deliver(
      Delivery(
        waiters: waiters, outcome: settlement.outcome, stopsWork: false, then: .endDelivery),
      event: event)
  }

  /// Settles an executing operation (the caller stored its next stage).
  private mutating func settle(
    _ settlement: Settlement, waiters: WaiterList, since: ClockInstant, stopsWork: Bool,
    then: AfterDelivery
  ) -> Action {
    if lingerTimer != nil { disarmLinger() }  // Nothing is left to cancel when it runs out.
    let event = record(
      .finished(settlement.outcome.completion), callerCount: waiters.count, since: since)
    return .deliver(
      Delivery(waiters: waiters, outcome: settlement.outcome, stopsWork: stopsWork, then: then),
      event: event)
  }

  /// The delivery `action` carries and its event, if it is one.
  private static func delivery(of action: consuming Action) -> (Delivery?, DecidedEvent?) {
    guard case .deliver(let delivery, let event) = consume action else { return (nil, nil) }
    return (delivery, event)
  }
}
