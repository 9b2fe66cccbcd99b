import Foundation
import OperationCore

/// An operation that finishes only when told (``release(_:)``), unless it was given a value to
/// return from `main()`. It counts `main()` calls and cancellation hooks and opens gates for
/// each, so tests can wait for them instead of sleeping.
class ManualOperation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
  // State lives in `counts`, guarded by its lock; the rest is immutable or thread-safe.
  private struct Counts {
    var main = 0
    var cancelHook = 0
    var isExecutingInMain = false
  }

  private let counts = Locked(Counts())
  private let keepsSlotWhenCancelled: Bool
  private let immediateValue: Int?
  private let onMain: (@Sendable (ManualOperation) -> Void)?

  /// Opened when `main()` runs.
  let started = Gate()
  /// Opened when ``operationWasCancelled()`` runs.
  let cancelHookCalled = Gate()

  /// Creates an operation.
  ///
  /// - Parameters:
  ///   - key: A coalescing key, or nil for an operation that never coalesces.
  ///   - value: If set, `main()` finishes with it at once; otherwise call ``release(_:)``.
  ///   - keepsSlotWhenCancelled: Returned by ``finishesImmediatelyWhenCancelled``, negated.
  ///   - onMain: Called at the start of `main()`, before it finishes or opens `started`.
  init(
    key: Int? = nil, value: Int? = nil, keepsSlotWhenCancelled: Bool = false,
    onMain: (@Sendable (ManualOperation) -> Void)? = nil
  ) {
    self.keepsSlotWhenCancelled = keepsSlotWhenCancelled
    self.immediateValue = value
    self.onMain = onMain
    if let key {
      super.init(coalescingKey: key)
    } else {
      super.init()
    }
  }

  override var finishesImmediatelyWhenCancelled: Bool { !keepsSlotWhenCancelled }

  /// How many times `main()` ran.
  var mainCallCount: Int { counts.withLock { $0.main } }
  /// How many times ``operationWasCancelled()`` ran.
  var cancelHookCallCount: Int { counts.withLock { $0.cancelHook } }
  /// What `isExecuting` said from inside `main()`.
  var wasExecutingInMain: Bool { counts.withLock { $0.isExecutingInMain } }

  override func main() {
    let executing = isExecuting
    counts.withLock {
      $0.main += 1
      $0.isExecutingInMain = executing
    }
    onMain?(self)
    started.open()
    if let immediateValue { finish(returning: immediateValue) }
  }

  override func operationWasCancelled() {
    counts.withLock { $0.cancelHook += 1 }
    cancelHookCalled.open()
  }

  /// Finishes the work with `value`.
  func release(_ value: Int) { finish(returning: value) }
}

/// A different operation class, to check that equal keys of different classes never join.
final class OtherManualOperation: ManualOperation, @unchecked Sendable {}

/// A failure type that can also stand for cancellation and timeout.
enum LoadFailure: OperationFailure, Equatable {
  case notFound
  case cancelled
  case timedOut(OperationTimeoutError)

  init(cancellation: CancellationError) { self = .cancelled }
  init(timeout: OperationTimeoutError) { self = .timedOut(timeout) }
}

/// A typed operation that finishes only when told, counting `main()` calls.
final class TypedOperation: ConcurrentOperation<Int, LoadFailure>, @unchecked Sendable {
  // State lives in `mainCalls`, guarded by its lock.
  private let mainCalls = Locked(0)
  /// Opened when `main()` runs.
  let started = Gate()

  init(key: Int? = nil) {
    if let key {
      super.init(coalescingKey: key)
    } else {
      super.init()
    }
  }

  /// How many times `main()` ran.
  var mainCallCount: Int { mainCalls.withLock { $0 } }

  override func main() {
    mainCalls.withLock { $0 += 1 }
    started.open()
  }
}

/// Turns its upstream's number into a description; counts `main(input:)` calls.
final class DescribeOperation: ChainedOperation<Int, String, any Error>, @unchecked Sendable {
  // State lives in `inputs`, guarded by its lock.
  private let inputs = Locked<[Int]>([])

  /// The inputs `main(input:)` received.
  var receivedInputs: [Int] { inputs.withLock { $0 } }

  override func main(input: Int) {
    inputs.withLock { $0.append(input) }
    finish(returning: "value \(input)")
  }
}

/// The typed counterpart of ``DescribeOperation``.
final class TypedDescribeOperation: ChainedOperation<Int, String, LoadFailure>,
  @unchecked Sendable
{
  // State lives in `inputs`, guarded by its lock.
  private let inputs = Locked<[Int]>([])

  /// The inputs `main(input:)` received.
  var receivedInputs: [Int] { inputs.withLock { $0 } }

  override func main(input: Int) {
    inputs.withLock { $0.append(input) }
    finish(returning: "value \(input)")
  }
}

/// An error a test operation fails with.
struct TestError: Error, Equatable {
  let code: Int
}

/// Results delivered to completion handlers, for inspection.
typealias ResultRecorder = Recorder<Result<Int, any Error>>

extension Result {
  /// The value, or nil on failure.
  var value: Success? { try? get() }

  /// The failure, or nil on success.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

extension Result where Failure == any Error {
  /// Whether this is a failure with `CancellationError`.
  var isCancellation: Bool { failure is CancellationError }
}
