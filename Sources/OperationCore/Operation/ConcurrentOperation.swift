import Dispatch
import Foundation
import LockedValue
import Synchronization

/// The base class for asynchronous operations that produce a typed result exactly once.
///
/// Subclass it, override ``main()`` to start the work, and end by calling ``finish(with:)``
/// (or ``finish(returning:)`` / ``finish(throwing:)``) from any thread. The queue and key-value
/// observers are told about state changes through the `"isExecuting"`, `"isFinished"` and
/// `"isCancelled"` keys, outside any lock, as Apple documents them (on
/// swift-corelibs-foundation, whose queue acts on `"isFinished"` alone, through that key only).
///
/// ```swift
/// final class Square: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
///   let input: Int
///   init(_ input: Int) { self.input = input; super.init(coalescingKey: input) }
///   override func main() { finish(returning: input * input) }
/// }
/// ```
///
/// **Exactly once.** Every waiter (completion handler or awaiting task) receives exactly one
/// outcome, whatever the race between finishing, cancelling, timing out and late joiners. A
/// second `finish` is a no-op.
///
/// **Cancellation.** ``cancel()`` is always safe. It delivers cancellation to every waiter at once,
/// calls ``operationWasCancelled()`` if the work had started, and releases the queue slot (unless
/// ``finishesImmediatelyWhenCancelled`` is false). An operation its queue has not started yet is
/// released once the queue starts it (the corelibs rule in docs/PLATFORM-NOTES.md). Waiters do
/// not wait for that; they are resumed at once.
///
/// **Readiness.** `isReady` is `Operation`'s own, so dependencies work as usual; a cancelled
/// operation becomes ready at once and is released without running ``main()``.
open class ConcurrentOperation<Value: Sendable, Failure: Error>: Operation, @unchecked Sendable {
  // State lives in `state`, guarded by its lock.
  let state = Locked(OperationStateMachine())
  /// Whether a dependency was ever added: only then is there any to detach at the finish.
  private let gainedDependency = Atomic(false)
  /// Whether the operation passes a raised priority on to its work while it runs (an
  /// `AsyncOperation`, an adapter): then an escalation of a waiting caller matters even when
  /// its queue makes nothing wait. Set once, by the subclass's initialiser.
  @usableFromInline
  package final var passesPriorityOn: Bool {
    get { passesPriorityOnStorage.load(ordering: .relaxed) }
    set { passesPriorityOnStorage.store(newValue, ordering: .relaxed) }
  }
  private let passesPriorityOnStorage = Atomic(false)
  /// The scheduler entries of the running operation's timeout and stall report (0: none),
  /// taken out when it is released: work that ends long before them leaves nothing in its
  /// manager's scheduler.
  let timeoutEntry = Atomic<UInt64>(0)
  let stallEntry = Atomic<UInt64>(0)
  /// The newest priority change stamped for `queuePriority` (``apply(_:)``): its version above
  /// the low byte, its priority's raw value in the low byte.
  let newestPriorityChange = Atomic<UInt64>(0)
  /// The operation's progress, made on the first report or the first observer and kept (one
  /// retain, given back in `deinit`) until the operation goes: an operation that has neither
  /// pays one nil check when it settles. An `Atomic` of a concrete type, whose operations are
  /// inlined: `AtomicLazyReference`'s `load` is a generic call that looks up metadata.
  let progressHub = Atomic<Unmanaged<ProgressHub>?>(nil)

  /// The key identical requests share, namespaced by this operation's class and value type;
  /// nil when the operation never coalesces.
  public let coalescingKey: CoalescingKey?

  /// Creates an operation that never coalesces with others.
  public override init() {
    coalescingKey = nil
    super.init()
  }

  /// Creates an operation that identical requests (equal `coalescingKey`, same operation class)
  /// join while it is pending or executing. Inlinable, so the key's storage is built for the
  /// caller's key type without looking up its generic metadata at run time.
  @inlinable
  public init(coalescingKey: some Hashable & Sendable) {
    self.coalescingKey = CoalescingKey(for: Self.self, base: coalescingKey)
    super.init()
  }

  // The progress hub's retain, taken when it was made (see `progressHub`).
  deinit {
    progressHub.load(ordering: .acquiring)?.release()
  }

  // MARK: Operation

  /// Always true: the work ends when the subclass calls `finish`, not when `main()` returns.
  open override var isAsynchronous: Bool { true }

  /// Adds a dependency, as `Operation` does.
  open override func addDependency(_ operation: Operation) {
    gainedDependency.store(true, ordering: .relaxed)
    super.addDependency(operation)
  }

  /// True from the moment the queue starts the operation until it is released.
  open override var isExecuting: Bool { state.withLock { $0.isExecuting } }

  /// True once the operation has released its queue slot.
  open override var isFinished: Bool { state.withLock { $0.isFinished } }

  /// True once the operation was cancelled or timed out before it settled (also when its
  /// upstream's cancellation reached it, for a ``ChainedOperation``).
  open override var isCancelled: Bool { state.withLock { $0.isCancelled } }

  /// Whether cancelling an executing operation releases its queue slot at once (true, the
  /// default) or only when the subclass calls `finish` after stopping its work (false).
  /// Either way, waiters receive cancellation at once.
  open var finishesImmediatelyWhenCancelled: Bool { true }

  /// How long the operation may execute before it is cancelled and its waiters receive
  /// ``OperationTimeoutError``; nil (the default) for no limit. Counted from the moment the
  /// queue starts the operation; set it before enqueueing. An operation that joins identical
  /// work in flight is dropped with its timeout: the work keeps the first operation's. For one
  /// caller's own limit, pass a `timeout` to the call that awaits it.
  public var timeout: Duration? {
    get { state.withLock { $0.timeout } }
    set { state.withLock { $0.timeout = newValue } }
  }

  /// How the operation ended, untyped (`CancellationError` for cancellation); nil until then.
  public var result: Result<Value, any Error>? {
    guard let outcome = state.withLock({ $0.outcome }) else { return nil }
    return Result { try outcome.value(as: Value.self) }
  }

  /// Starts the operation. Called by the queue; do not override (override ``main()``).
  public final override func start() {
    let (action, manager) = decide { $0.start() }
    switch consume action {
    case .run(let timeout, _):
      #if canImport(Darwin)
        willChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isExecuting")
      #endif
      // corelibs needs no notification here: its queue marked the operation as starting
      // before calling `start()`, and it reads `isExecuting` through the override.
      if let timeout { scheduleTimeout(after: timeout, on: manager) }
      if let manager, let threshold = manager.stallThreshold {
        scheduleStallCheck(after: threshold, on: manager)
      }
      main()
    case .release:
      release(to: manager)
    case .none, .publish, .announce, .registered, .refused, .resumeAtOnce, .deliver, .left:
      return
    }
  }

  /// Starts the work. Override it and call `finish` when the work ends, on any thread.
  ///
  /// The default implementation does nothing, so an operation that does not override it never
  /// finishes on its own: give it a ``timeout`` or cancel it.
  ///
  /// A cancellation or timeout may land between the start and this call, so `main()` can run
  /// for an operation that has already settled: check `isCancelled` before starting costly
  /// work, and expect `finish` to be a no-op then.
  open override func main() {}

  /// Cancels the operation: waiters receive cancellation at once, started work is told to stop
  /// through ``operationWasCancelled()``. Idempotent and safe from any thread at any time.
  public final override func cancel() {
    let releaseIfExecuting = finishesImmediatelyWhenCancelled
    // `super.cancel()` tells key-value observers that `isCancelled` turned true (on Apple).
    transition(notifyingCancellation: false) { $0.cancel(releaseIfExecuting: releaseIfExecuting) }
    super.cancel()
  }

  /// Called once, outside any lock, when started work should stop (cancellation or timeout),
  /// after the waiters were resumed.
  ///
  /// On ``cancel()`` (and so on `cancelAllOperations()`), it runs on the cancelling thread: do
  /// not block there, and hop to another queue before calling anything that may (such as
  /// `URLSessionTask.cancel()` on Linux). When the last caller leaves (its task was cancelled,
  /// its deadline passed), on a timeout, and when a linger runs out, it runs on a serial queue
  /// of its own, so a hook that blocks delays no caller and no timer of the manager's clock.
  /// If ``finishesImmediatelyWhenCancelled`` is false, call `finish` once the work has stopped.
  open func operationWasCancelled() {}

  // MARK: Finishing

  // The finishing methods are inlinable so that a subclass's call is specialised for its
  // `Value`: boxing the value then needs no lookup of the box's generic metadata at run time.

  /// Ends the operation with `result`. Only the first call counts.
  @inlinable
  public final func finish(with result: Result<Value, Failure>) {
    switch result {
    case .success(let value): finish(returning: value)
    case .failure(let failure): finish(throwing: failure)
    }
  }

  /// Ends the operation with a value. Only the first call counts.
  @inlinable
  public final func finish(returning value: Value) {
    settle(erased: .success(ValueBox(value)))
  }

  /// Ends the operation with a failure. Only the first call counts.
  public final func finish(throwing failure: Failure) {
    settle(erased: .failure(failure))
  }

  /// Ends the operation with an outcome, including cancellation or timeout taken over from
  /// upstream work.
  final func settle(_ outcome: OperationOutcome<Value, Failure>) {
    settle(erased: outcome.erased)
  }

  /// Ends the operation with a type-erased outcome (it must hold a `Value` or a `Failure`). Only
  /// the first call counts.
  @usableFromInline
  package final func settle(erased outcome: ErasedOutcome) {
    transition { $0.finish(with: outcome) }
  }

  /// Reports that an attempt failed and the operation will try again after `delay`: a
  /// `retrying` event for the manager's subscribers, in order with the operation's other
  /// events. Does nothing once the operation has settled.
  ///
  /// - Parameters:
  ///   - attempt: The attempt that failed, counted from 1.
  ///   - delay: How long the operation waits before the next attempt.
  ///   - failure: What failed.
  package final func reportRetry(attempt: Int, delay: Duration, failure: any Error) {
    let wakes = state.withLock { state in
      guard let audience = state.retryAudience else { return EventWakes() }
      let callerCount = state.callerCount
      return audience.publish {
        OperationEvent(
          kind: .retrying(attempt: attempt, delay: delay), operation: self, key: coalescingKey,
          callerCount: callerCount, duration: nil, failure: String(describing: failure))
      }
    }
    wakes.run()
  }

  // MARK: Waiters

  /// Adds an untyped completion handler, called exactly once with the operation's result
  /// (`CancellationError` when cancelled, ``OperationTimeoutError`` when timed out). If the
  /// operation has already settled, the handler is called at once.
  ///
  /// - Parameters:
  ///   - callbackQueue: Where to call `handler`; nil calls it on the thread that settles.
  ///   - handler: Receives the result.
  @inlinable
  @_disfavoredOverload
  public final func addCompletion(
    on callbackQueue: CallbackQueue? = nil,
    _ handler: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) {
    addWaiter(makeWaiter(callbackQueue: callbackQueue, untypedResult: handler))
  }

  /// Adds a waiter; delivers at once (on its callback queue) if the operation has settled.
  /// `policy` is the waiter's for when every caller has left (see ``AbandonmentPolicy``).
  /// Returns the waiter's identity, or nil when it was delivered at once.
  /// A waiter of claimed work asks for `priority`, as a caller joining it would.
  @discardableResult
  @usableFromInline
  package final func addWaiter(
    _ waiter: OperationWaiter, priority: PriorityLevel = .none,
    whenAbandoned policy: AbandonmentPolicy = .cancel
  ) -> OperationWaiter.ID? {
    let (action, change) = state.withLock { state in
      let action = state.addWaiter(waiter, priority: priority, whenAbandoned: policy)
      return (action, state.reprioritize())
    }
    switch action {
    case .registered(let id, _, _):
      apply(change)
      return id
    case .resumeAtOnce(let outcome, _):
      waiter.resume(with: outcome)
      return nil
    case .none, .publish, .announce, .refused, .run, .deliver, .left, .release:
      return nil
    }
  }

  /// Under the manager's lock: joins work that is still open (a nil waiter registers an
  /// interest that never leaves); `.refused` when the operation is cancelled or settled. The
  /// `joined` event's wakes are returned, not run: the caller runs them once the manager's
  /// lock is unlocked too.
  ///
  /// `follower` is the request's own operation, dropped for this work: it follows it. When
  /// the work settles, the follower takes its outcome and is released (it is in no queue), so
  /// whoever holds it (to depend on it, or wait for it) goes on; unless a manager claimed it
  /// since (it was enqueued again, and runs). One that settled meanwhile (cancelled) is
  /// released with its own outcome. It follows the work without being one of its callers: it
  /// neither keeps it from being cancelled nor counts as one of its waiters. Nor is it kept
  /// by it: released by everyone else by then, it has nobody left to tell.
  ///
  /// `policy` is the waiter's for when every caller has left (see ``AbandonmentPolicy``), and
  /// `priority` the queue priority the request asks for: the work's new queue priority is
  /// returned if the request raised it, for the caller to apply (``apply(_:)``) once the
  /// manager's lock is unlocked. `escalationCanMatter` is set to whether an escalation of the
  /// caller can change anything for the work
  /// (``OperationStateMachine/escalationCanMatter(forCallerAt:passesPriorityOn:)``).
  final func join(
    _ waiter: OperationWaiter?, follower: ConcurrentOperation<Value, Failure>?,
    priority: PriorityLevel, whenAbandoned policy: AbandonmentPolicy,
    escalationCanMatter: inout Bool
  ) -> (OperationStateMachine.Action, EventWakes, OperationStateMachine.PriorityChange?) {
    let passesPriorityOn = passesPriorityOn
    return state.withLock { state in
      let action = state.join(
        waiter, follower: follower, priority: priority, whenAbandoned: policy)
      let wakes = state.isAnnounced ? publishEvents(of: action, in: &state) : EventWakes()
      escalationCanMatter = state.escalationCanMatter(
        forCallerAt: priority, passesPriorityOn: passesPriorityOn)
      return (action, wakes, state.reprioritize())
    }
  }

  /// Removes a waiter that no longer wants the value, resumes it with `outcome` (cancellation,
  /// or the caller's own timeout), then, if nobody else wants the value, carries out the
  /// operation's cancellation, decided with the removal so that no request joins it meanwhile;
  /// or, for work its callers asked to linger, arms the timer that cancels it unless a caller
  /// comes first. Returns false when the operation had already taken the waiter to resume it.
  @discardableResult
  @usableFromInline
  package final func removeWaiter(
    _ id: OperationWaiter.ID, resumingWith outcome: ErasedOutcome
  ) -> Bool {
    let releaseIfExecuting = finishesImmediatelyWhenCancelled
    var change: OperationStateMachine.PriorityChange?
    let (action, manager) = decide {
      let action = $0.removeWaiter(id, releaseIfExecuting: releaseIfExecuting)
      // The work's priority falls back to the highest among the callers still waiting.
      change = $0.reprioritize()
      return action
    }
    guard case .left(let leaving, let cancellation, _, let linger) = consume action else {
      return false
    }
    // Before the caller resumes: once it has left, its priority no longer orders the queue.
    apply(change)
    leaving.resume(with: outcome)
    if let linger { scheduleLingerEnd(linger, on: manager) }
    guard let cancellation else { return true }
    // On the leaving caller's thread (a task's cancellation handler, a deadline's timer): the
    // hook, which may block, runs elsewhere.
    deliver(cancellation, manager: manager, hookOnOwnQueue: true)
    // What `cancel()` does after its own transition: `isCancelled` turns true.
    super.cancel()
    return true
  }

  /// A manager claims the operation for its queue and registers its first waiter atomically.
  final func claim(
    by manager: any ClaimingManager, waiter: OperationWaiter?,
    priority: PriorityLevel, whenAbandoned policy: AbandonmentPolicy, audience: EventAudience?
  ) -> OperationStateMachine.Action {
    state.withLock {
      $0.claim(
        by: manager, waiter: waiter, priority: priority, whenAbandoned: policy,
        audience: audience)
    }
  }

  /// The manager added the operation to its queue: `enqueued` goes out, then the events
  /// decided since the claim.
  final func announceEnqueued() {
    let wakes = state.withLock { state in publishEvents(of: state.enqueued(), in: &state) }
    wakes.run()
  }

  /// Whether a manager claimed the operation or a queue started it.
  package final var isClaimedOrStarted: Bool { state.withLock { $0.isClaimedOrStarted } }

  /// Called by a manager just before it adds this operation, claimed, to its queue. A
  /// ``ChainedOperation`` enqueues an upstream nobody enqueued.
  package func willEnqueue(on manager: OperationQueueManager) {}

  /// The quality of service, as `Operation`'s. Setting one also sets the queue priority the
  /// operation has (even an unchanged one): on a width-1 queue, swift-corelibs-foundation
  /// cannot move an operation with a quality of service and no priority of its own when its
  /// priority changes later (docs/PLATFORM-NOTES.md), and the priority of shared work changes
  /// with its callers.
  open override var qualityOfService: QualityOfService {
    didSet { setPriorityAgain() }
  }

  /// Called, outside any lock, when the operation's queue priority changed because its
  /// callers did: one asking for more joined or was escalated, or the most urgent one left.
  /// The queue orders pending work by the new priority. Work already executing is not changed
  /// by it: override this to pass the priority on (to a download's priority, say); an
  /// `AsyncOperation` escalates the task running its closure.
  ///
  /// - Parameters:
  ///   - priority: The new queue priority, already set.
  ///   - whileExecuting: Whether the queue had started the operation.
  open func priorityDidChange(to priority: Operation.QueuePriority, whileExecuting: Bool) {}

  /// Makes a waiter that hands an untyped result to `handler`; it never leaves.
  @inlinable
  package final func makeWaiter(
    callbackQueue: CallbackQueue?,
    untypedResult handler: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> OperationWaiter {
    OperationWaiter(interest: .untilSettled, callbackQueue: callbackQueue) { outcome in
      handler(Result { try outcome.value(as: Value.self) })
    }
  }

  // MARK: Effects

  /// Runs one input under the lock (publishing the events it decides there), then performs
  /// its action outside the lock.
  ///
  /// Delivering a cancellation or a timeout is when `isCancelled` turns true; key-value
  /// observers are told first (``notify(_:)``), unless the caller goes on to call
  /// `super.cancel()`, which tells them itself (`notifyingCancellation: false`).
  private func transition(
    notifyingCancellation: Bool = true,
    _ input: (inout OperationStateMachine) -> OperationStateMachine.Action
  ) {
    let (action, manager) = decide(input)
    switch consume action {
    case .deliver(let delivery, _):
      if notifyingCancellation, delivery.outcome.isCancellation { notify(.cancelled) }
      deliver(delivery, manager: manager)
    case .release:
      release(to: manager)
    case .none, .publish, .announce, .registered, .refused, .resumeAtOnce, .run, .left:
      return
    }
  }

  /// The first half of a transition: under the lock, the input's action, with its events
  /// published. Returns the action and the manager to carry it out with.
  func decide(
    _ input: (inout OperationStateMachine) -> OperationStateMachine.Action
  ) -> (OperationStateMachine.Action, (any ClaimingManager)?) {
    let (action, manager, wakes) = state.withLock { state in
      let action = input(&state)
      // An action carries events only while the operation is announced: a silent
      // operation's action is not read here at all.
      let wakes = state.isAnnounced ? publishEvents(of: action, in: &state) : EventWakes()
      return (action, state.manager, wakes)
    }
    wakes.run()
    return (action, manager)
  }

  /// Hands an outcome to waiters, outside the lock, then releases the operation or ends the
  /// delivery, as the delivery says.
  ///
  /// `hookOnOwnQueue`: ``operationWasCancelled()`` runs on a serial queue of its own instead of
  /// this thread, so that a hook that blocks delays no caller and no thread of the pool that
  /// tasks share.
  func deliver(
    _ delivery: OperationStateMachine.Delivery, manager: (any ClaimingManager)?,
    hookOnOwnQueue: Bool = false
  ) {
    if coalescingKey != nil { manager?.operationDidSettle(self, key: coalescingKey) }
    progressHub.load(ordering: .acquiring)?.takeUnretainedValue().close()
    delivery.waiters.resumeAll(with: delivery.outcome)
    delivery.waiters.forEachFollower { follower in
      // Only a `ConcurrentOperation<Value, Failure>` follows this one (see `join`).
      unsafeDowncast(follower, to: ConcurrentOperation<Value, Failure>.self)
        .transition { $0.followedWorkSettled(with: delivery.outcome) }
    }
    if delivery.stopsWork {
      if hookOnOwnQueue {
        DispatchQueue(label: "OperationBridge.operationWasCancelled").async {
          self.operationWasCancelled()
        }
      } else {
        operationWasCancelled()
      }
    }
    switch delivery.then {
    case .nothing:
      return
    case .release:
      release(to: manager)
    case .endDelivery:
      // The manager is read again: the operation may have been claimed since it settled.
      transition { $0.deliveryEnded() }
    }
  }

  /// Tells the queue (and the manager) that the operation is released; outside any lock.
  private func release(to manager: (any ClaimingManager)?) {
    notify(.released)
    // Released before a dependency finished (cancelled while waiting for it, say): this
    // operation must not be where that dependency looks when it finishes.
    if gainedDependency.load(ordering: .relaxed) { detachFromUnfinishedDependencies() }
    // Nearly always none: two plain reads. A timer kept after them is taken out by `keep`,
    // which then finds the operation released.
    if timeoutEntry.load(ordering: .sequentiallyConsistent) != 0
      || stallEntry.load(ordering: .sequentiallyConsistent) != 0
    {
      takeOutTimers(on: manager)
    }
    manager?.operationDidFinish(self)
  }

  /// A change of the operation's state that key-value observers are told about.
  enum StateChange {
    /// `isCancelled` turned true, other than through `cancel()`: a timeout, an upstream's
    /// cancellation or timeout, the cancellation of work this operation follows.
    case cancelled
    /// `isExecuting` turned false and `isFinished` true: the queue slot is free.
    case released
  }

  /// Tells key-value observers about `change`, outside every lock. On Apple platforms, in the
  /// nesting Apple's guide shows for a release: will `isFinished`, will `isExecuting`, did
  /// `isExecuting`, did `isFinished`. swift-corelibs-foundation has no key-value observing:
  /// its queue acts on did `isFinished` alone (its `Operation.observeValue`), so that is the
  /// one notification sent there. Not `final`, so that a test can see what is sent where
  /// corelibs delivers nothing.
  func notify(_ change: StateChange) {
    #if canImport(Darwin)
      switch change {
      case .cancelled:
        willChangeValue(forKey: "isCancelled")
        didChangeValue(forKey: "isCancelled")
      case .released:
        willChangeValue(forKey: "isFinished")
        willChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
      }
    #else
      switch change {
      case .cancelled: break
      case .released: didChangeValue(forKey: "isFinished")
      }
    #endif
  }

  /// The scheduler of the manager that claimed the operation (the continuous clock's when none
  /// did): its timeout, its stall report and its retry waits run on that manager's clock.
  package final var scheduler: Scheduler {
    state.withLock { $0.manager?.scheduler } ?? .continuous
  }

  /// How many waiters wait for the outcome now (awaiting tasks and completion handlers); 0
  /// once it is fixed.
  package final var callerCount: Int {
    state.withLock { $0.callerCount }
  }

}

extension ConcurrentOperation where Failure: OperationFailure {
  /// How the operation ended, typed (cancellation and timeout through ``OperationFailure``);
  /// nil until then.
  public var typedResult: Result<Value, Failure>? {
    guard let outcome = state.withLock({ $0.outcome }) else { return nil }
    return Result { () throws(Failure) in try outcome.value(as: Value.self, failure: Failure.self) }
  }

  /// Adds a typed completion handler, called exactly once with the operation's result.
  /// If the operation has already settled, the handler is called at once.
  ///
  /// - Parameters:
  ///   - callbackQueue: Where to call `handler`; nil calls it on the thread that settles.
  ///   - handler: Receives the result; cancellation arrives as `Failure(cancellation:)`.
  @inlinable
  public final func addCompletion(
    on callbackQueue: CallbackQueue? = nil,
    _ handler: @escaping @Sendable (Result<Value, Failure>) -> Void
  ) {
    addWaiter(makeWaiter(callbackQueue: callbackQueue, typedResult: handler))
  }

  /// Makes a waiter that hands a typed result to `handler`; it never leaves.
  @inlinable
  package final func makeWaiter(
    callbackQueue: CallbackQueue?,
    typedResult handler: @escaping @Sendable (Result<Value, Failure>) -> Void
  ) -> OperationWaiter {
    OperationWaiter(interest: .untilSettled, callbackQueue: callbackQueue) { outcome in
      handler(
        Result { () throws(Failure) in
          try outcome.value(as: Value.self, failure: Failure.self)
        })
    }
  }
}
