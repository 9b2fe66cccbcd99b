import Dispatch
import Foundation

/// The base class for asynchronous operations that produce a typed result exactly once.
///
/// Subclass it, override ``main()`` to start the work, and end by calling ``finish(with:)``
/// (or ``finish(returning:)`` / ``finish(throwing:)``) from any thread. The queue is told about
/// state changes through the `"isExecuting"` and `"isFinished"` keys, outside any lock (on
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
/// **Cancellation.** ``cancel()`` is always safe. It delivers cancellation to every waiter at
/// once (if the queue is starting the operation at that moment, right after the start is
/// announced to event subscribers), calls ``operationWasCancelled()`` if the work had started,
/// and releases the queue slot (unless ``finishesImmediatelyWhenCancelled`` is false). An operation its queue has not
/// started yet is reported finished only when the queue starts it: finishing it earlier hangs
/// swift-corelibs-foundation's queue. Waiters do not wait for that; they are resumed at once.
///
/// **Readiness.** `isReady` is `Operation`'s own, so dependencies work as usual; a cancelled
/// operation becomes ready at once and finishes without running ``main()``.
open class ConcurrentOperation<Value: Sendable, Failure: Error>: Operation, @unchecked Sendable {
  // State lives in `state`, guarded by its lock.
  private let state = Locked(OperationStateMachine())

  /// The key identical requests share, namespaced by this operation's class and value type;
  /// nil when the operation never coalesces.
  public let coalescingKey: CoalescingKey?

  /// Creates an operation that never coalesces with others.
  public override init() {
    coalescingKey = nil
    super.init()
  }

  /// Creates an operation that identical requests (equal `coalescingKey`, same operation class)
  /// join while it is pending or executing.
  public init(coalescingKey: some Hashable & Sendable) {
    self.coalescingKey = CoalescingKey(
      operationType: Self.self, valueType: Value.self, base: coalescingKey)
    super.init()
  }

  // MARK: Operation

  /// Always true: the work ends when the subclass calls `finish`, not when `main()` returns.
  open override var isAsynchronous: Bool { true }

  /// True from the moment the queue starts the operation until it finishes.
  open override var isExecuting: Bool { state.withLock { $0.phase == .executing } }

  /// True once the operation has released its queue slot.
  open override var isFinished: Bool { state.withLock { $0.phase == .finished } }

  /// True once the operation was cancelled or timed out before it finished.
  open override var isCancelled: Bool { state.withLock { $0.isCancelled } }

  /// Whether cancelling an executing operation releases its queue slot at once (true, the
  /// default) or only when the subclass calls `finish` after stopping its work (false).
  /// Either way, waiters receive cancellation at once.
  open var finishesImmediatelyWhenCancelled: Bool { true }

  /// How long the operation may execute before it is cancelled and its waiters receive
  /// ``OperationTimeoutError``; nil (the default) for no limit. Counted from the moment the
  /// queue starts the operation; set it before enqueueing.
  public var timeout: Duration? {
    get { state.withLock { $0.timeout } }
    set { state.withLock { $0.timeout = newValue } }
  }

  /// How the operation ended, untyped (`CancellationError` for cancellation); nil until then.
  public var result: Result<Value, any Error>? {
    state.withLock { $0.outcome }?.untypedResult(Value.self)
  }

  /// Starts the operation. Called by the queue; do not override (override ``main()``).
  public final override func start() {
    let (action, observer) = state.withLock { ($0.start(), $0.observer) }
    switch action {
    case .ignore, .finishAfterDelivery:
      return
    case .finishWithoutRunning:
      willChangeValue(forKey: "isFinished")
      didChangeValue(forKey: "isFinished")
      observer?.operationDidFinish(self)
    case .run(let timeout):
      #if canImport(Darwin)
        willChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isExecuting")
      #endif
      // corelibs needs no notification here: its queue marked the operation as starting
      // before calling `start()`, and it reads `isExecuting` through the override.
      observer?.operationDidStart(self, key: coalescingKey)
      // A finish or cancellation from another thread since the start waited for the `started`
      // event above, so nobody sees this operation settle or finish before it started.
      if let awaiting = state.withLock({ $0.startAnnounced() }) {
        for effects in awaiting { perform(effects, observer: observer) }
      }
      if let timeout { scheduleTimeout(after: timeout) }
      main()
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
    let finishIfExecuting = finishesImmediatelyWhenCancelled
    let (effects, observer) = state.withLock {
      ($0.cancel(finishIfExecuting: finishIfExecuting), $0.observer)
    }
    perform(effects, observer: observer)
    super.cancel()
  }

  /// Called once, outside any lock, when started work should stop (cancellation or timeout).
  ///
  /// Runs on the cancelling thread, which may be a task's cancellation handler: do not block,
  /// and hop to another queue before calling anything that may (such as
  /// `URLSessionTask.cancel()` on Linux). If ``finishesImmediatelyWhenCancelled`` is false,
  /// call `finish` once the work has stopped.
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
  package final func settle(_ outcome: OperationOutcome<Value, Failure>) {
    settle(erased: outcome.erased)
  }

  @usableFromInline
  final func settle(erased outcome: ErasedOutcome) {
    let (effects, observer) = state.withLock { ($0.finish(with: outcome), $0.observer) }
    perform(effects, observer: observer)
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
  public final func addCompletion(
    on callbackQueue: CallbackQueue? = nil,
    _ handler: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) {
    addWaiter(
      makeWaiter(callbackQueue: callbackQueue, untypedResult: handler), leavesEarly: false)
  }

  /// Adds a waiter; delivers at once (on its callback queue) if the operation has settled.
  @discardableResult
  @usableFromInline
  package final func addWaiter(
    _ waiter: OperationWaiter, leavesEarly: Bool
  ) -> OperationWaiter.ID? {
    let (id, settled) = state.withLock { $0.addWaiter(waiter, leavesEarly: leavesEarly) }
    if let settled { waiter.resume(with: settled) }
    return id
  }

  /// Joins work that is still open; nil when the operation is cancelled or settled.
  package final func join(
    _ waiter: OperationWaiter?, leavesEarly: Bool
  ) -> (id: OperationWaiter.ID, waiterCount: Int)? {
    state.withLock { state in
      state.join(waiter, leavesEarly: leavesEarly).map { ($0, state.waiterCount) }
    }
  }

  /// Removes a waiter that no longer wants the value, resumes it with cancellation, then
  /// cancels the operation if nobody else wants its value. Returns false when the operation
  /// had already taken the waiter to resume it with its outcome.
  @discardableResult
  @usableFromInline
  package final func cancelWaiter(_ id: OperationWaiter.ID) -> Bool {
    switch state.withLock({ $0.removeWaiter(id) }) {
    case .alreadyResumed:
      return false
    case .left(let waiter, let cancelOperation):
      waiter.resume(with: .cancelled)
      if cancelOperation { cancel() }
      return true
    }
  }

  /// Claims the operation for one queue and registers its first waiter atomically (a nil
  /// waiter registers an interest that never leaves).
  final func claimForEnqueue(
    observer: (any OperationLifecycleObserver)?,
    waiter: OperationWaiter?,
    leavesEarly: Bool
  ) -> OperationStateMachine.Claim {
    state.withLock {
      $0.claimForEnqueue(observer: observer, waiter: waiter, leavesEarly: leavesEarly)
    }
  }

  /// Sets the queue priority of an operation being claimed, before any joiner can see it:
  /// nothing can race with it, so it takes no lock, and an unchanged priority costs nothing.
  final func setInitialPriority(_ priority: Operation.QueuePriority) {
    if queuePriority != priority { queuePriority = priority }
  }

  /// Raises the operation's queue priority to at least `priority`.
  package final func raisePriority(to priority: Operation.QueuePriority) {
    // Most joiners ask for no more than the operation has: they take no lock. (`queuePriority`
    // is thread-safe; the check is repeated under the lock.)
    guard queuePriority.rawValue < priority.rawValue else { return }
    // A leaf lock: Foundation's setter re-sorts the queue and never calls back into this class.
    priorityChangeLock.withLock {
      if queuePriority.rawValue < priority.rawValue { queuePriority = priority }
    }
  }

  /// Makes a waiter that hands an untyped result to `handler`.
  @inlinable
  package final func makeWaiter(
    callbackQueue: CallbackQueue?,
    untypedResult handler: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> OperationWaiter {
    OperationWaiter(callbackQueue: callbackQueue) {
      handler($0.untypedResult(Value.self))
    }
  }

  // MARK: Effects

  private func perform(
    _ effects: OperationStateMachine.Effects, observer: (any OperationLifecycleObserver)?
  ) {
    if let outcome = effects.outcome {
      observer?.operationDidSettle(
        self, key: coalescingKey, completion: outcome.completion,
        waiterCount: effects.waiters.count,
        duration: effects.startedAt?.elapsed)
      effects.waiters.resumeAll(with: outcome)
      if effects.reportsDeliveryEnd {
        // Read the observer again: the operation may have been enqueued since it settled.
        let (finishNow, observer) = state.withLock { ($0.deliveryEnded(), $0.observer) }
        if finishNow {
          willChangeValue(forKey: "isFinished")
          didChangeValue(forKey: "isFinished")
          observer?.operationDidFinish(self)
        }
      }
    }
    if effects.stopWork { operationWasCancelled() }
    if case .finishedFromExecuting = effects.queueNotification {
      #if canImport(Darwin)
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
      #else
        // corelibs acts on "isExecuting" only when it turns true, and on "isFinished" alone to
        // finish (Operation.swift, observeValue): skip the notification it would ignore.
        didChangeValue(forKey: "isFinished")
      #endif
      observer?.operationDidFinish(self)
    }
  }

  private func scheduleTimeout(after timeout: Duration) {
    let error = OperationTimeoutError(
      timeout: timeout, operationName: name ?? String(describing: type(of: self)))
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout.timeInterval) {
      [weak self] in
      guard let self else { return }
      let (effects, observer) = self.state.withLock { ($0.timeOut(error), $0.observer) }
      self.perform(effects, observer: observer)
    }
  }
}

extension ConcurrentOperation where Failure: OperationFailure {
  /// How the operation ended, typed (cancellation and timeout through ``OperationFailure``);
  /// nil until then.
  public var typedResult: Result<Value, Failure>? {
    state.withLock { $0.outcome }?.typedResult(Value.self, Failure.self)
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
    addWaiter(makeWaiter(callbackQueue: callbackQueue, typedResult: handler), leavesEarly: false)
  }

  /// Makes a waiter that hands a typed result to `handler`.
  @inlinable
  package final func makeWaiter(
    callbackQueue: CallbackQueue?,
    typedResult handler: @escaping @Sendable (Result<Value, Failure>) -> Void
  ) -> OperationWaiter {
    OperationWaiter(callbackQueue: callbackQueue) {
      handler($0.typedResult(Value.self, Failure.self))
    }
  }
}

/// Serialises priority raises made by managers (rare: a join asking for a higher priority), so
/// two raises never interleave. One lock for all operations: a lock per operation would cost
/// two allocations on every enqueue.
private let priorityChangeLock = NSLock()

/// An operation from which a waiter can leave early, seen without its generic parameters.
@usableFromInline
package protocol WaiterCancelling: AnyObject, Sendable {
  /// Removes the waiter, resumes it with cancellation and cancels the operation if it was the
  /// last one; false when the operation had already taken it.
  @discardableResult
  func cancelWaiter(_ id: OperationWaiter.ID) -> Bool
}

extension ConcurrentOperation: WaiterCancelling {}

extension Duration {
  /// The duration in seconds, for Dispatch deadlines.
  var timeInterval: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
  }
}
