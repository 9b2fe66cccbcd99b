/// How an operation ended, before it is mapped to a caller's error type.
package enum OperationOutcome<Value: Sendable, Failure: Error>: Sendable {
  case success(Value)
  case failure(Failure)
  case cancelled
  case timedOut(OperationTimeoutError)

  /// The outcome with its value type erased, for storage and delivery.
  package var erased: ErasedOutcome {
    switch self {
    case .success(let value): .success(ValueBox(value))
    case .failure(let error): .failure(error)
    case .cancelled: .cancelled
    case .timedOut(let error): .timedOut(error)
    }
  }
}

extension OperationOutcome where Failure: OperationFailure {
  /// The outcome as a typed result: cancellation and timeout go through `OperationFailure`.
  package var typedResult: Result<Value, Failure> {
    switch self {
    case .success(let value): .success(value)
    case .failure(let error): .failure(error)
    case .cancelled: .failure(Failure(cancellation: CancellationError()))
    case .timedOut(let error): .failure(Failure(timeout: error))
    }
  }
}

extension OperationOutcome {
  /// Makes an outcome from a work result.
  package init(_ result: Result<Value, Failure>) {
    switch result {
    case .success(let value): self = .success(value)
    case .failure(let error): self = .failure(error)
    }
  }
}
