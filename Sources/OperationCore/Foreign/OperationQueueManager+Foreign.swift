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
    // One that produces a result runs as such, so callers of both kinds share it.
    if let producing = operation as? any ResultProducingOperation {
      return enqueueDiscardingOutput(
        producing, coalescingKey: coalescingKey, priority: priority,
        callbackQueue: callbackQueue, completion: completion)
    }
    return enqueueForeign(
      operation, as: Void.self, key: coalescingKey, priority: priority,
      callbackQueue: callbackQueue, completion: completion, outcome: ErasedOutcome.finished)
  }

  /// Runs `operation` on this manager's queue, or joins the same work in flight, and calls
  /// `completion` once with its ``ResultProducingOperation/outcome``; as the plain
  /// `enqueue(_:coalescingKey:priority:callbackQueue:completion:)`.
  ///
  /// - Parameters:
  ///   - operation: The work.
  ///   - coalescingKey: Joins work of the same class and key; nil joins only the same instance.
  ///   - priority: The queue priority; nil keeps the operation's own.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the finishing thread.
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
    enqueueForeign(
      operation, as: Foreign.Output.self, key: coalescingKey, priority: priority,
      callbackQueue: callbackQueue, completion: completion, outcome: ErasedOutcome.produced(by:))
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
    priority: Operation.QueuePriority?, callbackQueue: CallbackQueue?,
    completion: @escaping @Sendable (Result<Output, any Error>) -> Void,
    outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) -> Operation {
    let completion = counted(completion, on: callbackQueue)
    let waiter = OperationWaiter(interest: .untilSettled, callbackQueue: callbackQueue) {
      outcome in completion(Result { try outcome.value(as: Output.self) })
    }
    let admission = admitForeign(
      operation, as: Output.self, key: key, waiter: waiter, priority: priority, outcome: read)
    return (admission.operation as? ForeignAdapter<Output>)?.foreign ?? operation
  }

  /// Admits a request for foreign work with `waiter`: one that has finished gets its outcome at
  /// once; otherwise the request joins the instance's adapter while it is open, or makes it a
  /// new one and admits that as any operation (it may join work in flight under its key).
  package func admitForeign<Foreign: Operation, Output: Sendable>(
    _ operation: Foreign, as output: Output.Type, key: (any Hashable & Sendable)?,
    waiter: OperationWaiter?, priority: Operation.QueuePriority?,
    outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) -> Admission<Output, any Error> {
    if operation.isFinished {
      return ForeignAdapter.observe(operation, waiter: waiter, outcome: read)
    }
    while true {
      let found = ForeignAdapters.adapter(of: operation) as? ForeignAdapter<Output>
      if let found, found.isClaimed {
        let (join, wakes) = found.join(waiter)
        wakes.run()
        guard case .joined(let id, _) = join else {
          ForeignAdapters.retire(found, of: operation)  // Closed: the next turn replaces it.
          continue
        }
        if let priority { found.raisePriority(to: priority) }
        return Admission(operation: found, waiterID: id)
      }
      // A new adapter, unless a racing request installed one that it is admitting.
      let new =
        if let key { ForeignAdapter<Output>(for: operation, key: key) { read(operation) } } else {
          ForeignAdapter<Output>(for: operation) { read(operation) }
        }
      guard let adapter = ForeignAdapters.install(new, for: operation) as? ForeignAdapter<Output>
      else { return ForeignAdapter.observe(operation, waiter: waiter, outcome: read) }
      // Claimed meanwhile by a racing request: joined, so its closing is seen atomically.
      if adapter.isClaimed { continue }
      let admission = admit(adapter, waiter: waiter, priority: priority, droppedFollows: true)
      if admission.operation !== adapter {
        // Dropped for work under its key, it follows that work, then finishes `operation`
        // unrun unless a newer request made another adapter the instance's. Like any dropped
        // request, `operation` leaves its dependencies, whose unretained pointers to it would
        // crash corelibs once it is released.
        ForeignAdapters.retire(adapter, of: operation)
        for dependency in operation.dependencies { operation.removeDependency(dependency) }
      }
      return admission
    }
  }
}
