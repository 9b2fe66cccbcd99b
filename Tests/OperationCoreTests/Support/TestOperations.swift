import Foundation
import LockedValue
import OperationCore
import TestSupport

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
