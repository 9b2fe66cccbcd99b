import Foundation

// Foreign work (an `Operation` of your own) is admitted through a host, a `ConcurrentOperation`
// that stands in for it on the queue; see `ForeignOperationHost`. Admission then follows the
// core's paths: join the host in flight under the same key, or claim a new host.

extension OperationQueueManager {
  /// Runs `operation` (any `Operation`) on this manager's queue, or joins the same work in
  /// flight, and calls `completion` once when it has finished: success, or `CancellationError`
  /// if it was cancelled.
  ///
  /// The operation is not added to the queue itself: a stand-in is, which starts it when the
  /// queue starts the stand-in, so width, priorities, suspension, dependencies and
  /// ``cancelAllOperations()`` apply to it as to any operation here. Its `completionBlock` is
  /// left alone. Hand over an operation that nobody else enqueued or started; to wait for one
  /// that runs elsewhere, use `waitUntilFinished(_:timeout:)` (AsyncBridge).
  ///
  /// - Parameters:
  ///   - operation: The work. An operation that has already finished is not run again:
  ///     `completion` gets its outcome at once.
  ///   - coalescingKey: While work of the same operation class and key is pending or executing,
  ///     this request joins it and `operation` is dropped (never started). Without a key, only
  ///     a second request for the same instance joins.
  ///   - priority: The queue priority; nil keeps the operation's own.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the finishing thread.
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
    // One that produces a result runs as such, so its failure counts and callers of both
    // kinds share it.
    if let producing = operation as? any ResultProducingOperation {
      return enqueueDiscardingOutput(
        producing, coalescingKey: coalescingKey, priority: priority,
        callbackQueue: callbackQueue, completion: completion)
    }
    let completion = counted(completion, on: callbackQueue)
    let waiter = OperationWaiter(interest: .untilSettled, callbackQueue: callbackQueue) {
      outcome in completion(Result { try outcome.value(as: Void.self) })
    }
    return enqueueForeign(
      operation, as: Void.self, key: coalescingKey, waiter: waiter, priority: priority,
      outcome: ErasedOutcome.finished)
  }

  /// Runs `operation` on this manager's queue, or joins the same work in flight, and calls
  /// `completion` once with its ``ResultProducingOperation/outcome``.
  ///
  /// As the plain `enqueue(_:coalescingKey:priority:callbackQueue:completion:)`;
  /// an outcome of nil arrives as ``ForeignOperationError/noOutcome(operationName:)`` (or
  /// `CancellationError` if the operation was cancelled).
  ///
  /// - Parameters:
  ///   - operation: The work.
  ///   - coalescingKey: Joins work of the same class and key in flight; nil joins only the same
  ///     instance.
  ///   - priority: The queue priority; nil keeps the operation's own.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the finishing thread.
  ///   - completion: Called exactly once.
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
    let completion = counted(completion, on: callbackQueue)
    let waiter = OperationWaiter(interest: .untilSettled, callbackQueue: callbackQueue) {
      outcome in completion(Result { try outcome.value(as: Foreign.Output.self) })
    }
    return enqueueForeign(
      operation, as: Foreign.Output.self, key: coalescingKey, waiter: waiter, priority: priority,
      outcome: ErasedOutcome.produced(by:))
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

  private func enqueueForeign<Foreign: Operation, Output: Sendable>(
    _ operation: Foreign, as output: Output.Type, key: (any Hashable & Sendable)?,
    waiter: OperationWaiter, priority: Operation.QueuePriority?,
    outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) -> Operation {
    switch admitForeign(
      operation, as: Output.self, key: key, waiter: waiter, priority: priority, outcome: read)
    {
    case .finished(let outcome):
      waiter.resume(with: outcome)
      return operation
    case .waiting(let host, _):
      return (host as? ForeignOperationHost<Output>)?.foreign ?? operation
    }
  }

  /// Admits a request for foreign work: delivers at once if `operation` has finished, joins the
  /// host in flight under the same key (the operation's class and `key`, or the instance),
  /// or claims a new host that runs `operation`; registers `waiter` atomically with that.
  package func admitForeign<Foreign: Operation, Output: Sendable>(
    _ operation: Foreign, as output: Output.Type, key: (any Hashable & Sendable)?,
    waiter: OperationWaiter?, priority: Operation.QueuePriority?,
    outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) -> ForeignAdmission<Output> {
    if operation.isFinished { return .finished(read(operation)) }
    guard let key else {
      return admitForeign(
        operation, as: output, base: ForeignInstanceKey(operation: operation), waiter: waiter,
        priority: priority, outcome: read)
    }
    return admitForeign(
      operation, as: output, key: key, waiter: waiter, priority: priority, outcome: read)
  }

  /// Opens the caller's key, so the rest runs with its type known.
  private func admitForeign<Foreign: Operation, Output: Sendable, Key: Hashable & Sendable>(
    _ operation: Foreign, as output: Output.Type, key: Key, waiter: OperationWaiter?,
    priority: Operation.QueuePriority?, outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) -> ForeignAdmission<Output> {
    admitForeign(
      operation, as: output, base: ForeignKey(operation: operation, base: key), waiter: waiter,
      priority: priority, outcome: read)
  }

  private func admitForeign<Foreign: Operation, Output: Sendable, Base: Hashable & Sendable>(
    _ operation: Foreign, as output: Output.Type, base: Base, waiter: OperationWaiter?,
    priority: Operation.QueuePriority?, outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) -> ForeignAdmission<Output> {
    let coalescingKey = CoalescingKey(for: ForeignOperationHost<Output>.self, base: base)
    if let joined = join(
      coalescingKey, as: ConcurrentOperation<Output, any Error>.self, waiter: waiter,
      priority: priority)
    {
      return dropped(operation, joining: joined)
    }
    if let joined = joinOwner(of: operation, as: Output.self, waiter: waiter, priority: priority) {
      return joined
    }
    let host = ForeignOperationHost<Output>(running: operation, key: base) { read(operation) }
    // Nobody but the manager holds a stand-in: a dropped one is released.
    let admission = admit(host, waiter: waiter, priority: priority)
    guard admission.operation === host else { return dropped(operation, joining: admission) }
    host.watchForeign()
    return .waiting(host, waiterID: admission.waiterID)
  }

  /// Joins the stand-in that runs `operation` already, under another key or on another
  /// manager, if it is still open: one instance is one piece of work, so its callers share
  /// one stand-in, and one of them leaving never cancels it under the others (a second
  /// stand-in's last caller leaving would cancel the operation they all wait for). Nil when
  /// no stand-in of this output type runs it.
  private func joinOwner<Output: Sendable>(
    of operation: Operation, as output: Output.Type, waiter: OperationWaiter?,
    priority: Operation.QueuePriority?
  ) -> ForeignAdmission<Output>? {
    guard let owner = ForeignStart.owner(of: operation) as? ForeignOperationHost<Output> else {
      return nil
    }
    let (join, wakes) = owner.join(waiter)
    wakes.run()
    guard case .registered(let id, _, _) = join else { return nil }
    if let priority { owner.raisePriority(to: priority) }
    return .waiting(owner, waiterID: id)
  }

  /// `operation` joined other work in flight and never runs: like a dropped
  /// ``ConcurrentOperation``, it is detached from its dependencies, whose unretained pointers
  /// to it would crash corelibs once it is released, and it follows the work it joined. When
  /// that work ends it is cancelled and started (it is in no queue), so it finishes without
  /// running and whatever depends on it or waits for it goes on; unless a stand-in runs it by
  /// then (it was requested again).
  private func dropped<Foreign: Operation, Output: Sendable>(
    _ operation: Foreign, joining joined: Admission<Output, any Error>
  ) -> ForeignAdmission<Output> {
    if (joined.operation as? ForeignOperationHost<Output>)?.foreign !== operation {
      for dependency in operation.dependencies { operation.removeDependency(dependency) }
      joined.operation.addWaiter(
        OperationWaiter(interest: .following, callbackQueue: nil) { [weak operation] _ in
          // Released by everyone by then, it has nobody left to tell. On another thread, as a
          // stand-in cancels its legacy operation: a legacy `cancel()` or `start()` may block or
          // call back, and this runs among the work's other waiters.
          guard let operation else { return }
          DispatchQueue.global().async {
            guard ForeignStart.owner(of: operation) == nil else { return }
            ForeignStart.finishUnrun(operation)
          }
        })
    }
    return .waiting(joined.operation, waiterID: joined.waiterID)
  }
}
