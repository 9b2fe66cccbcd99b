import OperationCore

/// What an ``AsyncOperation`` does with its closure. Not generic, and not nested in the generic
/// class: the operation starts and cancels its work from unspecialised code (the queue calls
/// `main()` dynamically), where a generic state, outcome or value box would look up its
/// metadata on every run.
@usableFromInline
enum AsyncWork: Sendable {
  /// Not started: the closure, wrapped to hand back its outcome type-erased. `main()` makes the
  /// task that runs it.
  case idle(@Sendable () async -> ErasedOutcome)
  /// Not started: the task that runs the closure was made in its caller's context and waits at
  /// its gate until the queue starts the operation.
  case held(Task<Void, Never>, RunStartGate, madeAt: TaskPriority)
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
    self = .idle(Self.erasing(body))
  }

  /// Work whose task is made now, in the calling task's context: the closure sees that task's
  /// task-local values and runs at its priority (raised to the operation's queue priority when
  /// the queue starts it, if that is higher), once the queue starts the operation.
  @inlinable
  init<Value: Sendable>(inheritingContext body: @escaping @Sendable () async throws -> Value) {
    self = Self.held(Self.erasing(body))
  }

  /// `body`, wrapped to hand back its outcome type-erased; a `CancellationError` it throws is
  /// reported as cancellation.
  @inlinable
  static func erasing<Value: Sendable>(
    _ body: @escaping @Sendable () async throws -> Value
  ) -> @Sendable () async -> ErasedOutcome {
    {
      do {
        return .success(ValueBox(try await body()))
      } catch is CancellationError {
        return .cancelled
      } catch {
        return .failure(error)
      }
    }
  }

  /// Makes the task that runs `run` in the calling task's context, waiting at a gate of its
  /// own. Where the runtime can, the task starts at once on the calling thread and reaches its
  /// gate before this returns, so waiting costs no executor job.
  @usableFromInline
  static func held(_ run: @escaping @Sendable () async -> ErasedOutcome) -> AsyncWork {
    let gate = RunStartGate()
    let body: @Sendable () async -> Void = {
      guard let owner = await gate.wait() else { return }
      owner.settle(erased: await run())
    }
    let task = Task(operation: body)
    return .held(task, gate, madeAt: Task.currentPriority)
  }
}
