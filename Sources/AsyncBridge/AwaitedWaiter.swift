import OperationCore

/// Suspends the calling task as one waiter of an operation, and makes the task's cancellation
/// leave that operation without disturbing its other waiters.
///
/// Exactly-once resumption follows from ownership: the waiter sits in the operation's list
/// until either the operation settles (and the settling thread resumes it) or the cancellation
/// handler removes it (and then resumes it with cancellation). Only one of them can take it out.
enum AwaitedWaiter {
  /// Where the registration stands, shared by the registering code and the cancellation handler.
  private enum Registration {
    case pending
    case registered(any WaiterCancelling, OperationWaiter.ID)
    case cancelled
  }

  /// Registers a waiter through `register` and suspends until the outcome arrives or the task
  /// is cancelled. `register` must add the waiter (or deliver to it at once) and return the
  /// operation and the waiter's identity, if it is still in the list.
  static func outcome(
    register: (OperationWaiter) -> (any WaiterCancelling, OperationWaiter.ID?)
  ) async -> ErasedOutcome {
    if Task.isCancelled { return .cancelled }
    let registration = Locked(Registration.pending)
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let (operation, id) = register(OperationWaiter(continuation: continuation))
        guard let id else { return }
        let cancelledMeanwhile = registration.withLock { state in
          if case .cancelled = state { return true }
          state = .registered(operation, id)
          return false
        }
        // Leaving resumes the waiter with cancellation (before cancelling the operation, if it
        // was the last waiter), unless the operation got to it first.
        if cancelledMeanwhile { operation.cancelWaiter(id) }
      }
    } onCancel: {
      let registered = registration.withLock { state -> (any WaiterCancelling, UInt64)? in
        defer { state = .cancelled }
        if case .registered(let operation, let id) = state { return (operation, id) }
        return nil
      }
      if let (operation, id) = registered { operation.cancelWaiter(id) }
    }
  }
}

extension ErasedOutcome {
  /// The value, or the untyped error (`CancellationError` for cancellation).
  func untypedValue<Value: Sendable, Failure: Error>(
    of operation: ConcurrentOperation<Value, Failure>
  ) throws -> Value {
    try untypedValue(Value.self)
  }

  /// The value, or the typed failure.
  func typedValue<Value: Sendable, Failure: OperationFailure>(
    of operation: ConcurrentOperation<Value, Failure>
  ) throws(Failure) -> Value {
    try typed(Value.self, Failure.self).typedResult.get()
  }
}
