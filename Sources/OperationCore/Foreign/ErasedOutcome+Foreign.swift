import Foundation

extension ErasedOutcome {
  /// The outcome a foreign operation delivered, a `CancellationError` in it as cancellation.
  static func delivered<Value: Sendable>(_ result: Result<Value, any Error>) -> ErasedOutcome {
    switch result {
    case .success(let value): .success(ValueBox(value))
    case .failure(let error): error is CancellationError ? .cancelled : .failure(error)
    }
  }

  /// The value of foreign work as `Value`; a `Void` caller takes any value (a plain caller of an
  /// operation that produces one).
  package func foreignValue<Value: Sendable>(as type: Value.Type) throws -> Value {
    if Value.self == Void.self, case .success = self { return () as! Value }
    return try value(as: type)
  }
}
