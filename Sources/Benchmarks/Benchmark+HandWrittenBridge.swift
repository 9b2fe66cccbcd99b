import Foundation

extension Benchmark {
  /// What a user writes to await an `Operation` without this library, done correctly: the
  /// operation's `completionBlock` resumes a checked continuation (with `CancellationError`
  /// when the operation was cancelled), and a task cancellation handler cancels the operation,
  /// so a cancelled caller is let go as soon as the queue has ended the operation.
  ///
  /// The await scenarios' baseline: it is the fair alternative, not a straw man (no extra
  /// locks, no `Task` per call, no retain cycle). ``floor(on:)`` is what its primitives cost
  /// without the parts that make it correct.
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

    /// The floor under any awaiting bridge: a checked continuation inside a task cancellation
    /// handler, resumed by a `BlockOperation` added to `queue`.
    ///
    /// Not a usable bridge (its handler does nothing, so a cancelled caller would not be let
    /// go): it measures only what the primitives cost.
    static func floor(on queue: OperationQueue) async throws {
      try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          queue.addOperation(BlockOperation { continuation.resume() })
        }
      } onCancel: {
        // Nothing: only what installing the handler costs is measured.
      }
    }
  }
}
