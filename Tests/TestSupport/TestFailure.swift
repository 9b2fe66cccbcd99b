import OperationCore

/// The one error the tests' operations and closures fail with. It is an `OperationFailure`, so
/// a typed operation (`TestOperation<TestFailure>`) reports its cancellation and its timeout in
/// cases of its own, and untyped code throws it like any other error.
public enum TestFailure: OperationFailure, Equatable {
  /// A failure the test chose, told apart from others by its code.
  case broken(Int)
  /// The operation was cancelled.
  case cancelled
  /// The operation's timeout expired; the payload is that timeout.
  case timedOut(Duration)

  /// The failure that reports cancellation.
  public init(cancellation: CancellationError) {
    self = .cancelled
  }

  /// The failure that reports an expired timeout.
  public init(timeout: OperationTimeoutError) {
    self = .timedOut(timeout.timeout)
  }
}
