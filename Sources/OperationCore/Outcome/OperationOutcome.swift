/// How an operation ended, before it is mapped to a caller's error type.
@usableFromInline
package enum OperationOutcome<Value: Sendable, Failure: Error>: Sendable {
  /// It produced a value.
  case success(Value)
  /// It failed with its own error.
  case failure(Failure)
  /// It was cancelled.
  case cancelled
  /// Its timeout expired.
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
