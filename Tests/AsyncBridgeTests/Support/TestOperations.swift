import OperationCore

/// A test operation that does nothing until the test releases it, and counts what the
/// operation machinery did to it.
final class HeldOperation<Failure: Error>: ConcurrentOperation<Int, Failure>, @unchecked Sendable {
  // Counters are thread-safe; the rest is immutable or guarded by the superclass.
  /// How many times `main()` ran.
  let mainCalls = AsyncCounter()
  /// How many times `operationWasCancelled()` ran.
  let stopCalls = AsyncCounter()

  /// A coalescing operation.
  init(key: Int) {
    super.init(coalescingKey: key)
    name = "Held[\(key)]"
  }

  /// An operation that never coalesces.
  override init() {
    super.init()
    name = "Held"
  }

  override func main() {
    mainCalls.increment()
  }

  override func operationWasCancelled() {
    stopCalls.increment()
  }

  /// Waits until the queue has started the operation; false after `timeout`.
  func started(timeout: Duration = .seconds(30)) async -> Bool {
    await mainCalls.wait(untilAtLeast: 1, timeout: timeout)
  }

  /// Finishes with `value`.
  func release(_ value: Int) {
    finish(returning: value)
  }

  /// Finishes with `failure`.
  func fail(_ failure: Failure) {
    finish(throwing: failure)
  }
}

/// A held operation with untyped failures.
typealias Held = HeldOperation<any Error>

/// A held operation with typed failures.
typealias TypedHeld = HeldOperation<TestFailure>

/// An operation that finishes with its value as soon as it starts.
final class ImmediateOperation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
  // Immutable.
  private let value: Int

  init(value: Int) {
    self.value = value
    super.init()
  }

  override func main() {
    finish(returning: value)
  }
}

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
