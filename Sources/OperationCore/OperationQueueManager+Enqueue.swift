import Foundation

extension OperationQueueManager {
  /// The result of admitting a request: the operation doing the work, and the waiter's place.
  package struct Admission<Value: Sendable, Failure: Error> {
    /// The operation that does the work: the one passed in, or the in-flight one it joined.
    package let operation: ConcurrentOperation<Value, Failure>
    /// The waiter's identity on `operation`, to leave early; nil when no waiter was given or
    /// the outcome was delivered at once.
    package let waiterID: OperationWaiter<Value, Failure>.ID?
    /// Whether the request joined work already in flight.
    package let joined: Bool
  }

  /// Enqueues `operation`, or joins an identical one in flight, and calls `completion` once
  /// with the result (`CancellationError` when cancelled, ``OperationTimeoutError`` on timeout).
  ///
  /// - Parameters:
  ///   - operation: The work. If an operation with the same ``CoalescingKey`` is pending or
  ///     executing, this one is dropped and `completion` waits for that one instead.
  ///   - priority: The queue priority; joining raises a pending operation's priority to it.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the settling thread.
  ///   - completion: Called exactly once.
  /// - Returns: The operation that does the work; cancelling it cancels every waiter.
  @discardableResult
  public func enqueue<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> ConcurrentOperation<Value, Failure> {
    let waiter = OperationWaiter<Value, Failure>(callbackQueue: callbackQueue) {
      completion($0.untypedResult)
    }
    return admit(operation, waiter: waiter, leavesEarly: false, priority: priority).operation
  }

  /// Enqueues `operation`, or joins an identical one in flight, and calls `completion` once
  /// with the typed result (cancellation and timeout through ``OperationFailure``).
  ///
  /// - Parameters:
  ///   - operation: The work; see ``enqueue(_:priority:callbackQueue:completion:)-(_,_,_,(Result<Value,any Error>)->Void)``.
  ///   - priority: The queue priority; joining raises a pending operation's priority to it.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the settling thread.
  ///   - completion: Called exactly once.
  /// - Returns: The operation that does the work; cancelling it cancels every waiter.
  @discardableResult
  public func enqueue<Value, Failure: OperationFailure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Value, Failure>) -> Void
  ) -> ConcurrentOperation<Value, Failure> {
    let waiter = OperationWaiter<Value, Failure>(callbackQueue: callbackQueue) {
      completion($0.typedResult)
    }
    return admit(operation, waiter: waiter, leavesEarly: false, priority: priority).operation
  }

  /// Enqueues `operation`, or joins an identical one in flight, without waiting for it.
  ///
  /// - Returns: The operation that does the work; add completions to it or cancel it.
  @discardableResult
  public func enqueue<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil
  ) -> ConcurrentOperation<Value, Failure> {
    admit(operation, waiter: nil, leavesEarly: false, priority: priority).operation
  }

  /// Enqueues or joins, registering `waiter` atomically with the decision.
  ///
  /// A waiter that `leavesEarly` (an awaiting task) may later leave through
  /// `ConcurrentOperation.removeWaiter`; when the last such waiter leaves and nobody else
  /// wants the value, the operation is cancelled.
  package func admit<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    waiter: OperationWaiter<Value, Failure>?,
    leavesEarly: Bool,
    priority: Operation.QueuePriority?
  ) -> Admission<Value, Failure> {
    if let key = operation.coalescingKey {
      let joined = state.withLock { state -> (ConcurrentOperation<Value, Failure>, Int, UInt64)? in
        if let current = state.inFlight[key] as? ConcurrentOperation<Value, Failure>,
          current !== operation,
          let (id, count) = current.join(waiter, leavesEarly: leavesEarly)
        {
          return (current, count, id)
        }
        return nil
      }
      if let (current, count, id) = joined {
        // The dropped request never runs. On swift-corelibs-foundation each of its dependencies
        // keeps an unretained pointer to it and dereferences it on finishing, which crashes
        // once the caller releases it (a coalesced `ChainedOperation`, say): detach it.
        for dependency in operation.dependencies { operation.removeDependency(dependency) }
        if let priority { current.raisePriority(to: priority) }
        events.publish(event(.joined, for: current, waiterCount: count))
        return Admission(operation: current, waiterID: waiter == nil ? nil : id, joined: true)
      }
    }
    return enqueueFresh(operation, waiter: waiter, leavesEarly: leavesEarly, priority: priority)
  }

  private func enqueueFresh<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    waiter: OperationWaiter<Value, Failure>?,
    leavesEarly: Bool,
    priority: Operation.QueuePriority?
  ) -> Admission<Value, Failure> {
    guard operation.claimForEnqueue(observer: self) else {
      // Enqueued before (here or elsewhere) or already run: wait for it rather than trap.
      let id = waiter.flatMap { operation.addWaiter($0, leavesEarly: leavesEarly) }
      return Admission(operation: operation, waiterID: id, joined: true)
    }
    var id: OperationWaiter<Value, Failure>.ID?
    if let waiter {
      id = operation.addWaiter(waiter, leavesEarly: leavesEarly)
    } else {
      _ = operation.join(nil, leavesEarly: false)
    }
    if let priority { operation.queuePriority = priority }
    let key = operation.coalescingKey
    state.withLock { state in
      state.outstanding += 1
      // Never index settled work (cancelled or finished before or while being enqueued): its
      // settle may already have run the index removal, which would leave a stale entry.
      if let key, operation.result == nil { state.inFlight[key] = operation }
    }
    events.publish(event(.enqueued, for: operation, waiterCount: waiter == nil ? 0 : 1))
    queue.addOperation(operation)
    return Admission(operation: operation, waiterID: id, joined: false)
  }
}
