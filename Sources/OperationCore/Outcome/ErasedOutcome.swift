/// How an operation ended, with its value type erased.
///
/// Operations store and deliver this form so their lifecycle code is not generic; callers get
/// it back typed through one accessor, ``typed(_:_:)``, or as a value or a thrown error through
/// the two `value(as:)` methods.
@usableFromInline
package enum ErasedOutcome: Sendable {
  /// It produced a value, boxed.
  case success(any ValueBoxing)
  /// It failed with its own error.
  case failure(any Error)
  /// It was cancelled.
  case cancelled
  /// Its timeout expired. Boxed: an error description is larger than the other payloads, and
  /// outcomes sit in every awaiting task's frames.
  indirect case timedOut(OperationTimeoutError)

  /// The event kind that reports this outcome.
  package var completion: OperationEvent.Completion {
    switch self {
    case .success: .success
    case .failure: .failure
    case .cancelled: .cancelled
    case .timedOut: .timedOut
    }
  }

  /// Whether the outcome reports cancellation or an expired timeout.
  var isCancellation: Bool {
    switch self {
    case .success, .failure: false
    case .cancelled, .timedOut: true
    }
  }

  /// The typed outcome. The operation that stored this outcome declared `Value` and `Failure`,
  /// so the casts cannot fail unless that invariant is broken.
  @inlinable
  package func typed<Value: Sendable, Failure: Error>(
    _ value: Value.Type, _ failure: Failure.Type
  ) -> OperationOutcome<Value, Failure> {
    switch self {
    case .success(let box): .success(Self.unbox(box, as: Value.self))
    case .failure(let error): .failure(Self.failure(error, as: Failure.self))
    case .cancelled: .cancelled
    case .timedOut(let error): .timedOut(error)
    }
  }

  // The two gets switch on the stored outcome themselves rather than through `typed`: they
  // run once per waiter, often unspecialised, where the typed intermediate would cost a
  // generic metadata lookup.

  /// The value, or the untyped error (`CancellationError` for cancellation).
  @inlinable
  package func value<Value: Sendable>(as type: Value.Type) throws -> Value {
    switch self {
    case .success(let box): return Self.unbox(box, as: Value.self)
    case .failure(let error): throw error
    case .cancelled: throw CancellationError()
    case .timedOut(let error): throw error
    }
  }

  /// The value, or the typed failure (cancellation and timeout through ``OperationFailure``).
  @inlinable
  package func value<Value: Sendable, Failure: OperationFailure>(
    as type: Value.Type, failure: Failure.Type
  ) throws(Failure) -> Value {
    switch self {
    case .success(let box): return Self.unbox(box, as: Value.self)
    case .failure(let error): throw Self.failure(error, as: Failure.self)
    case .cancelled: throw Failure(cancellation: CancellationError())
    case .timedOut(let error): throw Failure(timeout: error)
    }
  }

  /// The stored value. By construction the box holds the operation's `Value`; checked in
  /// debug builds.
  @inlinable
  static func unbox<Value: Sendable>(_ box: any ValueBoxing, as type: Value.Type) -> Value {
    unsafeDowncast(box, to: ValueBox<Value>.self).value
  }

  /// A stored failure as the operation's declared `Failure`.
  @usableFromInline
  static func failure<Failure: Error>(_ error: any Error, as type: Failure.Type) -> Failure {
    guard let error = error as? Failure else {
      preconditionFailure("an operation's failure is not of its declared type \(Failure.self)")
    }
    return error
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
