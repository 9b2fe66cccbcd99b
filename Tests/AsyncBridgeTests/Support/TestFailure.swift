import OperationCore

/// A typed failure for the typed-throws tests.
enum TestFailure: OperationFailure, Equatable {
  case broken(Int)
  case cancelled
  case timedOut(Duration)

  init(cancellation: CancellationError) {
    self = .cancelled
  }

  init(timeout: OperationTimeoutError) {
    self = .timedOut(timeout.timeout)
  }
}

/// An error thrown by test closures.
struct Boom: Error, Equatable {
  let code: Int
}
