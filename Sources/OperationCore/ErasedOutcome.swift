/// How an operation ended, with its value type erased.
///
/// Operations store and deliver this form so their lifecycle code is not generic; the typed
/// views (``OperationOutcome``, `Result`) are made only at the edges, for the caller.
package enum ErasedOutcome: Sendable {
  case success(any ValueBoxing)
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
    case .success(let box):
      // Checked in debug builds; by construction the box holds the operation's `Value`.
      return .success(unsafeDowncast(box, to: ValueBox<Value>.self).value)
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

extension ErasedOutcome {
  /// The untyped result (`CancellationError` for cancellation), built without the typed
  /// intermediate: this runs once per waiter.
  package func untypedResult<Value: Sendable>(_ value: Value.Type) -> Result<Value, any Error> {
    Result { try untypedValue(value) }
  }

  /// The value, or the untyped error (`CancellationError` for cancellation).
  package func untypedValue<Value: Sendable>(_ value: Value.Type) throws -> Value {
    switch self {
    case .success(let box): return unsafeDowncast(box, to: ValueBox<Value>.self).value
    case .failure(let error): throw error
    case .cancelled: throw CancellationError()
    case .timedOut(let error): throw error
    }
  }
}

/// A value stored in an ``ErasedOutcome``.
package protocol ValueBoxing: AnyObject, Sendable {}

/// Holds an operation's value so the typed view can take it back without a dynamic cast.
package final class ValueBox<Value: Sendable>: ValueBoxing {
  /// The value.
  package let value: Value

  /// Boxes `value`.
  package init(_ value: Value) { self.value = value }
}
