/// How an operation ended, with its value type erased.
///
/// Operations store and deliver this form so their lifecycle code is not generic; the typed
/// views (``OperationOutcome``, `Result`) are made only at the edges, for the caller.
package enum ErasedOutcome: Sendable {
  case success(any Sendable)
  case failure(any Error)
  case cancelled
  case timedOut(OperationTimeoutError)

  /// The event kind that reports this outcome.
  package var completion: OperationEvent.Completion {
    switch self {
    case .success: .success
    case .failure: .failure
    case .cancelled: .cancelled
    case .timedOut: .timedOut
    }
  }

  /// The typed outcome. The operation that stored this outcome declared `Value` and `Failure`,
  /// so the casts cannot fail unless that invariant is broken.
  package func typed<Value: Sendable, Failure: Error>(
    _ value: Value.Type, _ failure: Failure.Type
  ) -> OperationOutcome<Value, Failure> {
    switch self {
    case .success(let value):
      guard let value = value as? Value else {
        preconditionFailure("an operation's value is not of its declared type \(Value.self)")
      }
      return .success(value)
    case .failure(let error):
      guard let error = error as? Failure else {
        preconditionFailure("an operation's failure is not of its declared type \(Failure.self)")
      }
      return .failure(error)
    case .cancelled: return .cancelled
    case .timedOut(let error): return .timedOut(error)
    }
  }
}
