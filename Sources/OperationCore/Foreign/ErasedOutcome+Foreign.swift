import Foundation

extension ErasedOutcome {
  /// How a finished operation that produces no value ended: cancellation if it was cancelled,
  /// success otherwise.
  package static func finished(_ operation: Operation) -> ErasedOutcome {
    operation.isCancelled ? .cancelled : .success(ValueBox(()))
  }

  /// How a finished ``ResultProducingOperation`` ended: its outcome (see ``delivered(_:)``);
  /// without one, cancellation if it was cancelled, and
  /// ``ForeignOperationError/noOutcome(operationName:)`` otherwise.
  package static func produced<Foreign: ResultProducingOperation>(
    by operation: Foreign
  ) -> ErasedOutcome {
    if let outcome = operation.outcome { return delivered(outcome) }
    if operation.isCancelled { return .cancelled }
    return .failure(ForeignOperationError.noOutcome(operationName: operation.displayName))
  }

  /// The outcome a foreign operation delivered, a `CancellationError` in it as cancellation.
  package static func delivered<Value: Sendable>(_ result: Result<Value, any Error>)
    -> ErasedOutcome
  {
    switch result {
    case .success(let value): .success(ValueBox(value))
    case .failure(let error): error is CancellationError ? .cancelled : .failure(error)
    }
  }
}

extension Operation {
  /// The operation's name, or its class's when it has none.
  package var displayName: String { name ?? String(describing: type(of: self)) }
}
