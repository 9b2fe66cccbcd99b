/// A typed failure that can also stand for cancellation and timeout.
///
/// Every operation can end in two ways that have nothing to do with its own work: it can be
/// cancelled, or its timeout can expire. An operation whose `Failure` is `any Error` reports
/// these as `CancellationError` and ``OperationTimeoutError``. An operation with a concrete
/// failure type reports them typed, through this protocol, so callers can switch exhaustively:
///
/// ```swift
/// enum LoadError: OperationFailure {
///   case notFound
///   case cancelled
///   case timedOut(OperationTimeoutError)
///   init(cancellation: CancellationError) { self = .cancelled }
///   init(timeout: OperationTimeoutError) { self = .timedOut(timeout) }
/// }
/// ```
///
/// Untyped APIs (completion handlers taking `Result<Value, any Error>`, `throws` without a type)
/// are available for every operation and always report cancellation as `CancellationError`.
public protocol OperationFailure: Error {
  /// Creates the failure that reports the operation was cancelled.
  init(cancellation: CancellationError)
  /// Creates the failure that reports the operation's timeout expired.
  init(timeout: OperationTimeoutError)
}

/// The error delivered when a time limit expires: the operation's own
/// ``ConcurrentOperation/timeout`` (every waiter gets it) or one caller's deadline (only that
/// caller leaves; see ``scope``).
///
/// It is distinct from `CancellationError`: a caller can tell "I gave up" from "the work hung".
public struct OperationTimeoutError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Whose time limit expired.
  public enum Scope: Sendable, Equatable {
    /// The operation's own timeout, counted from the moment its queue started it: the work
    /// was stopped and every waiter got this error.
    case operation
    /// One caller's deadline (`perform(_:timeout:)` and the like), counted from its call: that
    /// caller left; the shared work goes on for the others.
    case caller
  }

  /// The time limit that expired.
  public let timeout: Duration
  /// The name of the operation that timed out, if it had one (nil for a caller's deadline).
  public let operationName: String?
  /// Whose time limit expired.
  public let scope: Scope

  /// Creates a timeout error.
  public init(timeout: Duration, operationName: String? = nil, scope: Scope = .operation) {
    self.timeout = timeout
    self.operationName = operationName
    self.scope = scope
  }

  /// A one-line description such as `operation FetchQuestions timed out after 5.0 seconds`
  /// or `deadline of 2.0 seconds passed`.
  public var description: String {
    switch scope {
    case .operation: "operation \(operationName ?? "(unnamed)") timed out after \(timeout)"
    case .caller: "deadline of \(timeout) passed"
    }
  }
}
