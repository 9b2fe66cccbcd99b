import Foundation

extension OperationQueueManager {
  /// Runs `operation` (any `Operation`) on this manager's queue, or joins the same work in
  /// flight, and calls `completion` once when it has finished: success, or `CancellationError`
  /// if it was cancelled.
  ///
  /// Its adapter goes into the queue and starts it, so queue control and dependencies apply;
  /// its `completionBlock` is left alone. Hand over an operation nobody else enqueued or
  /// started; for one that runs elsewhere, use `waitUntilFinished(_:timeout:)` (AsyncBridge).
  ///
  /// - Parameters:
  ///   - operation: The work. One that has already finished is not run again.
  ///   - coalescingKey: Joins pending or executing work of the same class and key, and
  ///     `operation` is dropped (never started). Without a key, only the same instance joins.
  ///   - priority: The queue priority; nil keeps the operation's own.
  ///   - callbackQueue: Where to call `completion`. Nil calls it on the thread that settles the
  ///     work: a thread of the bridge's private finish-signal queue, which notices the operation
  ///     report `isFinished` (or the thread that started an operation that finished inside
  ///     `start()`, if that thread sees it first); the calling thread, before this returns, for
  ///     an operation that had already finished; the cancelling thread when the work is
  ///     cancelled (`cancelAllOperations()`).
  ///   - completion: Called exactly once.
  /// - Returns: The operation doing the work: `operation`, or the one in flight it joined.
  @discardableResult
  @_disfavoredOverload
  public func enqueue(
    _ operation: some Operation,
    coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) -> Operation {
    // One that produces a result runs as such, so callers of both kinds share it.
    if let producing = operation as? any ResultProducingOperation {
      return enqueueDiscardingOutput(
        producing, coalescingKey: coalescingKey, priority: priority,
        callbackQueue: callbackQueue, completion: completion)
    }
    let waiter = handlerWaiter(callbackQueue: callbackQueue, completion: completion)
    return admitForeign(
      operation, as: Void.self, key: coalescingKey, waiter: waiter, priority: priority,
      outcome: ErasedOutcome.finished
    ).foreignOperation(or: operation)
  }

  /// Runs `operation` on this manager's queue, or joins the same work in flight, and calls
  /// `completion` once with its ``ResultProducingOperation/outcome``; as the plain
  /// `enqueue(_:coalescingKey:priority:callbackQueue:completion:)`.
  ///
  /// - Parameters:
  ///   - operation: The work.
  ///   - coalescingKey: Joins work of the same class and key; nil joins only the same instance.
  ///   - priority: The queue priority; nil keeps the operation's own.
  ///   - callbackQueue: Where to call `completion`, as for the plain `enqueue`.
  ///   - completion: Called exactly once; an outcome of nil arrives as
  ///     ``ForeignOperationError/noOutcome(operationName:)`` (`CancellationError` if cancelled).
  /// - Returns: The operation doing the work: `operation`, or the one in flight it joined.
  @discardableResult
  @_disfavoredOverload
  public func enqueue<Foreign: ResultProducingOperation>(
    _ operation: Foreign,
    coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Foreign.Output, any Error>) -> Void
  ) -> Operation {
    let waiter = handlerWaiter(callbackQueue: callbackQueue, completion: completion)
    return admitForeign(
      operation, as: Foreign.Output.self, key: coalescingKey, waiter: waiter, priority: priority,
      outcome: ErasedOutcome.produced(by:)
    ).foreignOperation(or: operation)
  }

  private func enqueueDiscardingOutput<Foreign: ResultProducingOperation>(
    _ operation: Foreign, coalescingKey: (any Hashable & Sendable)?,
    priority: Operation.QueuePriority?, callbackQueue: CallbackQueue?,
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) -> Operation {
    enqueue(
      operation, coalescingKey: coalescingKey, priority: priority, callbackQueue: callbackQueue
    ) { (result: Result<Foreign.Output, any Error>) in completion(result.map { _ in }) }
  }

  /// Builds a foreign operation around a completion handler of the manager's, runs it on this
  /// manager's queue, or joins the same work in flight, and calls `completion` once with what
  /// that handler receives first.
  ///
  /// ```swift
  /// manager.enqueue(coalescingKey: "user/7", { complete in
  ///   UserFetchOperation(completionHandler: complete)
  /// }) { result in … }
  /// ```
  ///
  /// Pass `complete` to the operation where it takes its completion handler (typically its
  /// initializer); the operation's adapter goes into the queue and starts it, as with
  /// `enqueue(_:coalescingKey:priority:callbackQueue:completion:)`. What the handler receives
  /// first is the outcome, whenever it comes: before the operation reports finished, after, or
  /// later on another queue; later calls are ignored. An operation that is released without
  /// calling it gives ``ForeignOperationError/completionHandlerReleased(operationName:)`` then.
  ///
  /// - Parameters:
  ///   - coalescingKey: Joins work in flight that a request built under an equal key for the same
  ///     `Value`; `makeOperation` then never runs, so a joiner builds nothing. Nil: work of its own.
  ///   - priority: The queue priority; nil keeps the one the operation sets itself.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the thread that settles the
  ///     work (the one the operation calls its handler on, for an outcome it delivers).
  ///   - makeOperation: Builds the operation around `complete`, the manager's handler. Called at
  ///     most once, before this returns.
  ///   - completion: Called exactly once.
  public func enqueue<Value: Sendable>(
    coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    _ makeOperation: (_ complete: @escaping @Sendable (Result<Value, any Error>) -> Void) ->
      Operation,
    completion: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) {
    let waiter = handlerWaiter(callbackQueue: callbackQueue, completion: completion)
    admitBuilt(key: coalescingKey, waiter: waiter, priority: priority, makeOperation)
  }

  /// A waiter that calls `completion` (counted while it waits on `callbackQueue`); it never
  /// leaves.
  private func handlerWaiter<Output: Sendable>(
    callbackQueue: CallbackQueue?,
    completion: @escaping @Sendable (Result<Output, any Error>) -> Void
  ) -> OperationWaiter {
    let completion = counted(completion, on: callbackQueue)
    return OperationWaiter(interest: .untilSettled, callbackQueue: callbackQueue) { outcome in
      completion(Result { try outcome.value(as: Output.self) })
    }
  }

  /// Admits a request for work that `makeOperation` builds around a ``BridgeHandler``: joins
  /// work in flight under `key` first, so a joiner builds nothing; otherwise builds the
  /// operation and admits it as foreign work under `key`, settled by what the handler receives.
  /// `policy` is the waiter's for when every caller has left (``AbandonmentPolicy``).
  @discardableResult
  package func admitBuilt<Value: Sendable>(
    key: (any Hashable & Sendable)?, waiter: OperationWaiter?, priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy = .cancel,
    _ makeOperation: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> Operation
  ) -> Admission<Value, any Error> {
    let scoped = key.map { ForeignKey($0, of: nil) }
    if let scoped,
      let joined = join(
        CoalescingKey(for: ForeignAdapter<Value>.self, base: scoped),
        as: ConcurrentOperation<Value, any Error>.self, waiter: waiter, priority: priority,
        whenAbandoned: policy)
    {
      return joined
    }
    let handler = BridgeHandler<Value>()
    let operation = makeOperation(handler.complete)
    let own = operation.queuePriority
    let admission = admitForeign(
      operation, as: Value.self, scopedKey: scoped, waiter: waiter,
      priority: priority.map { own.rawValue > $0.rawValue ? own : $0 }, whenAbandoned: policy,
      outcome: nil)
    handler.attach(to: admission.operation)
    return admission
  }

  /// Admits a request for foreign `operation` under `key` (scoped to its class), read by `read`;
  /// `policy` is the waiter's for when every caller has left (``AbandonmentPolicy``).
  package func admitForeign<Foreign: Operation, Output: Sendable>(
    _ operation: Foreign, as output: Output.Type, key: (any Hashable & Sendable)?,
    waiter: OperationWaiter?, priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy = .cancel,
    outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) -> Admission<Output, any Error> {
    admitForeign(
      operation, as: output, scopedKey: key.map { ForeignKey($0, of: type(of: operation)) },
      waiter: waiter, priority: priority, whenAbandoned: policy, outcome: read)
  }

  /// Admits a request for foreign work with `waiter`: one that has finished gets its outcome at
  /// once; otherwise the request joins the instance's adapter, or installs a new one, joins it
  /// and admits it as any operation (it may join work in flight under its key).
  ///
  /// Every request, the installing one included, joins the adapter through the adapter's own
  /// lock, claimed or not: there the last caller leaving and the cancellation are one step, so
  /// a request either joins before the others have all left, or finds the adapter closed and
  /// installs a fresh one. It never takes a cancellation that another caller's leaving caused.
  /// Only the request that installed an adapter admits it.
  private func admitForeign<Foreign: Operation, Output: Sendable>(
    _ operation: Foreign, as output: Output.Type, scopedKey key: ForeignKey?,
    waiter: OperationWaiter?, priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy,
    outcome read: (@Sendable (Foreign) -> ErasedOutcome)?
  ) -> Admission<Output, any Error> {
    if operation.isFinished {
      return ForeignAdapter.observe(operation, waiter: waiter, outcome: read)
    }
    while true {
      var installed: ForeignAdapter<Output>?
      let current: Operation
      if let found = ForeignAdapters.adapter(of: operation) {
        current = found
      } else {
        let new = ForeignAdapter<Output>(for: operation, key: key, outcome: read)
        // Set before anyone can join it: joiners may only raise it.
        if let priority { new.setInitialPriority(priority) }
        current = ForeignAdapters.install(new, for: operation)
        installed = new
      }
      guard let adapter = current as? ForeignAdapter<Output> else {
        return ForeignAdapter.observe(operation, waiter: waiter, outcome: read)
      }
      // The caller's priority counts while it waits: the adapter's follows its callers.
      let (join, wakes, change) = adapter.join(
        waiter, follower: nil, priority: PriorityLevel(priority), whenAbandoned: policy)
      wakes.run()
      guard case .registered(let id, _, _) = join else {
        ForeignAdapters.retire(adapter, of: operation)  // Closed: the next turn replaces it.
        continue
      }
      adapter.apply(change)
      if adapter === installed {
        admitInstalled(adapter, for: operation, priority: priority)
      }
      return Admission(operation: adapter, waiterID: id)
    }
  }

  /// Admits the adapter a request installed and joined. A hold (a caller that wants nothing)
  /// goes with the admission: claimed, it keeps the adapter open until the claim is done, then
  /// leaves, cancelling the adapter only if every caller left meanwhile. Dropped for work under
  /// the key, the adapter follows that work, and the hold stays that work's caller for the
  /// adapter's callers: it leaves once they all have, so the work is cancelled under nobody.
  private func admitInstalled<Foreign: Operation, Output: Sendable>(
    _ adapter: ForeignAdapter<Output>, for operation: Foreign, priority: Operation.QueuePriority?
  ) {
    let hold = OperationWaiter(interest: .untilLeaving, callbackQueue: nil) { _ in }
    let admission = admit(adapter, waiter: hold, priority: nil)
    guard let holdID = admission.waiterID else { return }  // Settled before the claim.
    let work = admission.operation
    guard work !== adapter else {
      work.removeWaiter(holdID, resumingWith: .cancelled)
      return
    }
    // Dropped: it follows that work, then finishes `operation` unrun unless a newer request
    // made another adapter the instance's. Like any dropped request, `operation` leaves its
    // dependencies, whose unretained pointers to it would crash corelibs once it is released.
    ForeignAdapters.retire(adapter, of: operation)
    for dependency in operation.dependencies { operation.removeDependency(dependency) }
    if let priority { work.raisePriority(to: priority) }
    adapter.addWaiter(
      OperationWaiter(interest: .following, callbackQueue: nil) { _ in
        // Settled: its callers all left, or the work settled (then this does nothing).
        work.removeWaiter(holdID, resumingWith: .cancelled)
      })
  }
}

extension OperationQueueManager.Admission {
  /// The foreign operation doing the work: the adapter's, or `operation` once that finished.
  func foreignOperation(or operation: Operation) -> Operation {
    (self.operation as? ForeignAdapter<Value>)?.foreign ?? operation
  }
}
