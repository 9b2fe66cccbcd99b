import Foundation
import OperationCore

extension OperationQueueManager {
  /// Enqueues `operation`, or joins an identical one in flight, and returns its value.
  ///
  /// A new operation gets `priority` as its queue priority (by default the calling task's
  /// priority mapped onto `Operation.QueuePriority`); joining a pending one raises its priority
  /// to `priority` if that is higher, so shared work runs at its most urgent caller's priority.
  ///
  /// Cancelling the calling task resumes this call at once with `CancellationError`, even if
  /// the operation is still pending in a suspended queue. The operation itself is cancelled
  /// only when no other caller (awaiting task or completion handler) still waits for it. A task
  /// that is already cancelled gets `CancellationError` without enqueueing anything.
  ///
  /// - Parameters:
  ///   - operation: The work. If one with the same ``CoalescingKey`` is in flight, this one
  ///     is dropped and the call waits for that one.
  ///   - priority: The queue priority this caller asks for; nil uses the task's.
  /// - Returns: The operation's value.
  /// - Throws: The operation's failure, `CancellationError` when cancelled (the task or the
  ///   operation), or ``OperationTimeoutError`` when the operation's timeout expired.
  public func perform<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil
  ) async throws -> Value {
    try await outcome(of: operation, priority: priority).untypedValue(Value.self)
  }

  /// Enqueues `operation`, or joins an identical one in flight, and returns its value, with
  /// typed failures.
  ///
  /// Cancellation behaves as in the untyped ``perform(_:priority:)-(ConcurrentOperation<Value,Failure>,_)``,
  /// except that it arrives as `Failure(cancellation:)` (and a timeout as `Failure(timeout:)`).
  ///
  /// - Parameters:
  ///   - operation: The work, coalesced by its key.
  ///   - priority: The queue priority this caller asks for; nil uses the task's.
  /// - Returns: The operation's value.
  /// - Throws: The operation's typed failure.
  public func perform<Value, Failure: OperationFailure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil
  ) async throws(Failure) -> Value {
    try await outcome(of: operation, priority: priority).typedValue(of: operation)
  }

  /// Runs `body` as an operation on this manager's queue and returns its value.
  ///
  /// The closure gets the queue's control: it waits for a free slot, honours suspension,
  /// priorities and ``cancelAllOperations()``, and with a `key` identical calls share one run.
  /// Cancelling the calling task leaves the shared run (cancelling it when nobody else
  /// waits); cancelling the operation cancels the task running `body`.
  ///
  /// - Parameters:
  ///   - key: A coalescing key; calls with equal keys share one run while it is in flight.
  ///   - priority: The queue priority this caller asks for; nil uses the task's.
  ///   - body: The work.
  /// - Returns: What `body` returned.
  /// - Throws: What `body` threw, or `CancellationError`.
  @inlinable
  public func run<Value: Sendable>(
    key: (some Hashable & Sendable)? = Int?.none,
    priority: Operation.QueuePriority? = nil,
    _ body: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    guard let key else { return try await perform(AsyncOperation(body), priority: priority) }
    // Joining needs only the key: no operation is built for a call that would drop it.
    let coalescingKey = CoalescingKey(
      operationType: AsyncOperation<Value>.self, valueType: Value.self, base: key)
    let outcome = await AwaitedWaiter.outcome { waiter in
      let priority = priority ?? Operation.QueuePriority(Task.currentPriority)
      let joined = joinInFlight(
        coalescingKey, as: ConcurrentOperation<Value, any Error>.self, waiter: waiter,
        leavesEarly: true, priority: priority)
      let admission =
        joined
        ?? admit(
          AsyncOperation(coalescingKey: key, body), waiter: waiter, leavesEarly: true,
          priority: priority)
      return (admission.operation, admission.waiterID)
    }
    return try outcome.untypedValue(Value.self)
  }

  private func outcome<Value, Failure>(
    of operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority?
  ) async -> ErasedOutcome {
    await AwaitedWaiter.outcome { waiter in
      let priority = priority ?? Operation.QueuePriority(Task.currentPriority)
      let admission = admit(operation, waiter: waiter, leavesEarly: true, priority: priority)
      return (admission.operation, admission.waiterID)
    }
  }
}
