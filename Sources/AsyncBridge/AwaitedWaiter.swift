import OperationCore

/// Suspends the calling task as one waiter of an operation, and makes the task's cancellation
/// leave that operation without disturbing its other waiters.
///
/// Exactly-once resumption follows from ownership: the waiter sits in the operation's list
/// until either the operation settles (and the settling thread resumes it) or the cancellation
/// handler removes it (and then resumes it with cancellation). Only one of them can take it out.
enum AwaitedWaiter {
  /// Where the registration stands, shared by the registering code and the cancellation handler.
  private enum Registration<Value: Sendable, Failure: Error> {
    case pending
    case registered(ConcurrentOperation<Value, Failure>, OperationWaiter<Value, Failure>.ID)
    case cancelled
  }

  /// Registers a waiter through `register` and suspends until the outcome arrives or the task
  /// is cancelled. `register` must add the waiter (or deliver to it at once) and return the
  /// operation and the waiter's identity, if it is still in the list.
  static func outcome<Value: Sendable, Failure: Error>(
    register: (OperationWaiter<Value, Failure>) -> (
      ConcurrentOperation<Value, Failure>, OperationWaiter<Value, Failure>.ID?
    )
  ) async -> OperationOutcome<Value, Failure> {
    if Task.isCancelled { return .cancelled }
    let registration = Locked(Registration<Value, Failure>.pending)
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let waiter = OperationWaiter<Value, Failure>(continuation: continuation)
        let (operation, id) = register(waiter)
        guard let id else { return }
        let cancelledMeanwhile = registration.withLock { state in
          if case .cancelled = state { return true }
          state = .registered(operation, id)
          return false
        }
        if cancelledMeanwhile { leave(operation, id) }
      }
    } onCancel: {
      let registered = registration.withLock {
        state -> (ConcurrentOperation<Value, Failure>, OperationWaiter<Value, Failure>.ID)? in
        defer { state = .cancelled }
        if case .registered(let operation, let id) = state { return (operation, id) }
        return nil
      }
      if let (operation, id) = registered { leave(operation, id) }
    }
  }

  /// Takes the waiter out of the operation and resumes it with cancellation (before the
  /// operation itself is cancelled, if it was the last waiter), unless the operation got to
  /// it first.
  private static func leave<Value: Sendable, Failure: Error>(
    _ operation: ConcurrentOperation<Value, Failure>, _ id: OperationWaiter<Value, Failure>.ID
  ) {
    operation.cancelWaiter(id)
  }
}

extension OperationOutcome {
  /// The value, or the untyped error (`CancellationError` for cancellation).
  func untypedValue() throws -> Value {
    try untypedResult.get()
  }
}

extension OperationOutcome where Failure: OperationFailure {
  /// The value, or the typed failure.
  func typedValue() throws(Failure) -> Value {
    try typedResult.get()
  }
}
