import Foundation

extension ErasedOutcome {
  /// How a finished operation that produces no value ended: cancellation if it was cancelled,
  /// success otherwise.
  package static func finished(_ operation: Operation) -> ErasedOutcome {
    operation.isCancelled ? .cancelled : .success(ValueBox(()))
  }

  /// How a finished ``ResultProducingOperation`` ended: its outcome (a `CancellationError`
  /// inside it as cancellation); without one, cancellation if it was cancelled, and
  /// ``ForeignOperationError/noOutcome(operationName:)`` otherwise.
  package static func produced<Foreign: ResultProducingOperation>(
    by operation: Foreign
  ) -> ErasedOutcome {
    switch operation.outcome {
    case .success(let value):
      return .success(ValueBox(value))
    case .failure(let error):
      return error is CancellationError ? .cancelled : .failure(error)
    case nil:
      if operation.isCancelled { return .cancelled }
      return .failure(ForeignOperationError.noOutcome(operationName: operation.displayName))
    }
  }
}

extension Operation {
  /// The operation's name, or its class's when it has none.
  package var displayName: String { name ?? String(describing: type(of: self)) }
}
