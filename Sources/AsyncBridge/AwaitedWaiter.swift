import OperationCore
import Synchronization

/// Suspends the calling task as one waiter of an operation, and makes the task's cancellation
/// leave that operation without disturbing its other waiters.
///
/// Exactly-once resumption follows from ownership: the waiter sits in the operation's list
/// until either the operation settles (and the settling thread resumes it) or the cancellation
/// handler removes it (and then resumes it with cancellation). Only one of them can take it out.
@usableFromInline
enum AwaitedWaiter {
  /// Registers a waiter through `register` and suspends until the outcome arrives or the task
  /// is cancelled. `register` must add the waiter (or deliver to it at once) and return the
  /// operation and the waiter's identity, if it is still in the list.
  @usableFromInline
  static func outcome(
    register: (OperationWaiter) -> (any WaiterCancelling, OperationWaiter.ID?)
  ) async -> ErasedOutcome {
    if Task.isCancelled { return .cancelled }
    let registration = Registration()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let (operation, id) = register(OperationWaiter(continuation: continuation))
        guard let id else { return }
        // Leaving resumes the waiter with cancellation (before cancelling the operation, if it
        // was the last waiter), unless the operation got to it first.
        if !registration.record(operation, id) { operation.cancelWaiter(id) }
      }
    } onCancel: {
      if let (operation, id) = registration.cancel() { operation.cancelWaiter(id) }
    }
  }
}

/// Where a waiter's registration stands, shared by the registering code and the task's
/// cancellation handler: whichever comes second makes the waiter leave.
///
/// Lock-free, one allocation: the registering side writes the operation and identity, then
/// publishes them with a releasing exchange; the handler reads them only after acquiring that.
private final class Registration: @unchecked Sendable {
  private static let pending = 0
  private static let recorded = 1
  private static let cancelled = 2

  private let stage = Atomic(Registration.pending)
  // Written once, before `stage` becomes `recorded`; read only after seeing `recorded`.
  private var operation: (any WaiterCancelling)?
  private var id: OperationWaiter.ID = 0

  /// Records the waiter's place; false if the task was cancelled first (the caller then makes
  /// the waiter leave).
  func record(_ operation: any WaiterCancelling, _ id: OperationWaiter.ID) -> Bool {
    self.operation = operation
    self.id = id
    return stage.compareExchange(
      expected: Self.pending, desired: Self.recorded, ordering: .acquiringAndReleasing
    ).exchanged
  }

  /// Marks the task cancelled; returns the waiter's place if it was recorded first.
  func cancel() -> (any WaiterCancelling, OperationWaiter.ID)? {
    guard stage.exchange(Self.cancelled, ordering: .acquiringAndReleasing) == Self.recorded,
      let operation
    else { return nil }
    return (operation, id)
  }
}

extension ErasedOutcome {
  /// The value, or the typed failure.
  func typedValue<Value: Sendable, Failure: OperationFailure>(
    of operation: ConcurrentOperation<Value, Failure>
  ) throws(Failure) -> Value {
    try typedResult(Value.self, Failure.self).get()
  }
}
