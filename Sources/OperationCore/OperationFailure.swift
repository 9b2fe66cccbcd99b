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

/// The error delivered when an operation's timeout expires before it finishes.
///
/// It is distinct from `CancellationError`: a caller can tell "I gave up" from "the work hung".
public struct OperationTimeoutError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The timeout that expired, counted from the moment the queue started the operation.
  public let timeout: Duration
  /// The name of the operation that timed out, if it had one.
  public let operationName: String?

  /// Creates a timeout error.
  public init(timeout: Duration, operationName: String? = nil) {
    self.timeout = timeout
    self.operationName = operationName
  }

  /// A one-line description such as `operation FetchQuestions timed out after 5.0 seconds`.
  public var description: String {
    "operation \(operationName ?? "(unnamed)") timed out after \(timeout)"
  }
}
