/// How an operation ended, before it is mapped to a caller's error type.
@usableFromInline
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
