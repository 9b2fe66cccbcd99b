import OperationCore

/// What an ``AsyncOperation`` does with its closure. Not generic, and not nested in the generic
/// class: the operation starts and cancels its work from unspecialised code (the queue calls
/// `main()` dynamically), where a generic state, outcome or value box would look up its
/// metadata on every run.
@usableFromInline
enum AsyncWork: Sendable {
  /// Not started: the closure, wrapped to hand back its outcome type-erased.
  case idle(@Sendable () async -> ErasedOutcome)
  /// Running in this task.
  case running(Task<Void, Never>)
  /// Cancelled: the task (if any) was cancelled, or the closure never starts.
  case cancelled
  /// Taken by `main()`, which is starting the task.
  case starting

  /// Work that runs `body` and erases its outcome; a `CancellationError` it throws is reported
  /// as cancellation. Inlinable, so the wrapper is specialised for the caller's `Value` and
  /// boxes the value without a metadata lookup.
  @inlinable
  init<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) {
    self = .idle {
      do {
        return .success(ValueBox(try await body()))
      } catch is CancellationError {
        return .cancelled
      } catch {
        return .failure(error)
      }
    }
  }
}
