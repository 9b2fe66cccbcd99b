import Foundation

extension Benchmark {
  /// What a user writes to await an `Operation` without this library, done correctly: the
  /// operation's `completionBlock` resumes a checked continuation (with `CancellationError`
  /// when the operation was cancelled), and a task cancellation handler cancels the operation,
  /// so a cancelled caller is let go as soon as the queue has ended the operation.
  ///
  /// The await scenarios' baseline: it is the fair alternative, not a straw man (no extra
  /// locks, no `Task` per call, no retain cycle).
  enum HandWrittenBridge {
    /// Adds a no-op `BlockOperation` to `queue` and returns once it has finished.
    ///
    /// - Throws: `CancellationError` when the operation was cancelled (by the calling task's
    ///   cancellation or anyone else's) before its block ran.
    static func perform(on queue: OperationQueue) async throws {
      let operation = BlockOperation {}
      try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation {
          (continuation: CheckedContinuation<Void, any Error>) in
          // `unowned`: the awaiting frame keeps the operation alive until this block resumes
          // it, and a strong capture would be a retain cycle.
          operation.completionBlock = { [unowned operation] in
            if operation.isCancelled {
              continuation.resume(throwing: CancellationError())
            } else {
              continuation.resume()
            }
          }
          queue.addOperation(operation)
        }
      } onCancel: {
        operation.cancel()
      }
    }
  }
}
