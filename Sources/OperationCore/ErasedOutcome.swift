/// How an operation ended, with its value type erased.
///
/// Operations store and deliver this form so their lifecycle code is not generic; the typed
/// views (``OperationOutcome``, `Result`) are made only at the edges, for the caller.
@usableFromInline
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
    case .failure(let error): return .failure(Self.failure(error, as: Failure.self))
    case .cancelled: return .cancelled
    case .timedOut(let error): return .timedOut(error)
    }
  }
}

extension ErasedOutcome {
  /// The untyped result (`CancellationError` for cancellation), built without the typed
  /// intermediate: this runs once per waiter. Inlinable, so it is specialised where the value
  /// type is known, and the `Result` needs no generic metadata lookup.
  @inlinable
  package func untypedResult<Value: Sendable>(_ value: Value.Type) -> Result<Value, any Error> {
    switch self {
    case .success(let box): .success(unsafeDowncast(box, to: ValueBox<Value>.self).value)
    case .failure(let error): .failure(error)
    case .cancelled: .failure(CancellationError())
    case .timedOut(let error): .failure(error)
    }
  }

  /// The typed result (cancellation and timeout through ``OperationFailure``), built without
  /// the typed intermediate: this runs once per waiter. Inlinable for the same reason as
  /// ``untypedResult(_:)``.
  @inlinable
  package func typedResult<Value: Sendable, Failure: OperationFailure>(
    _ value: Value.Type, _ failure: Failure.Type
  ) -> Result<Value, Failure> {
    switch self {
    case .success(let box): .success(unsafeDowncast(box, to: ValueBox<Value>.self).value)
    case .failure(let error): .failure(Self.failure(error, as: Failure.self))
    case .cancelled: .failure(Failure(cancellation: CancellationError()))
    case .timedOut(let error): .failure(Failure(timeout: error))
    }
  }

  /// A stored failure as the operation's declared `Failure`. The operation that stored it
  /// declared that type, so the cast cannot fail unless that invariant is broken.
  @usableFromInline
  static func failure<Failure: Error>(_ error: any Error, as type: Failure.Type) -> Failure {
    guard let error = error as? Failure else {
      preconditionFailure("an operation's failure is not of its declared type \(Failure.self)")
    }
    return error
  }

  /// The value, or the untyped error (`CancellationError` for cancellation).
  @inlinable
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
@usableFromInline
package protocol ValueBoxing: AnyObject, Sendable {}

/// Holds an operation's value so the typed view can take it back without a dynamic cast.
@usableFromInline
package final class ValueBox<Value: Sendable>: ValueBoxing {
  /// The value.
  @usableFromInline
  package let value: Value

  /// Boxes `value`.
  @usableFromInline
  package init(_ value: Value) { self.value = value }
}
