/// How an operation ended, before it is mapped to a caller's error type.
package enum OperationOutcome<Value: Sendable, Failure: Error>: Sendable {
  case success(Value)
  case failure(Failure)
  case cancelled
  case timedOut(OperationTimeoutError)

  /// The outcome as an untyped result: cancellation is `CancellationError`.
  @inline(__always)

  package var untypedResult: Result<Value, any Error> {
    switch self {
    case .success(let value): .success(value)
    case .failure(let error): .failure(error)
    case .cancelled: .failure(CancellationError())
    case .timedOut(let error): .failure(error)
    }
  }

  /// The event kind that reports this outcome.
  @inline(__always)

  package var completion: OperationEvent.Completion {
    switch self {
    case .success: .success
    case .failure: .failure
    case .cancelled: .cancelled
    case .timedOut: .timedOut
    }
  }
}

extension OperationOutcome where Failure: OperationFailure {
  /// The outcome as a typed result: cancellation and timeout go through `OperationFailure`.
  @inline(__always)

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
  @inline(__always)

  package init(_ result: Result<Value, Failure>) {
    switch result {
    case .success(let value): self = .success(value)
    case .failure(let error): self = .failure(error)
    }
  }
}
