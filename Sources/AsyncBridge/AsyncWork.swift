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
  case held(Task<Void, Never>, RunStartGate)
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
  /// own.
  @usableFromInline
  static func held(_ run: @escaping @Sendable () async -> ErasedOutcome) -> AsyncWork {
    let gate = RunStartGate(madeAt: Task.currentPriority)
    let body: @Sendable () async -> Void = {
      guard let owner = await gate.wait() else { return }
      owner.settle(erased: await run())
    }
    let task = Task(operation: body)
    return .held(task, gate)
  }
}

// MARK: Transitions

extension AsyncWork {
  /// What `main()` does once the queue starts the operation.
  @usableFromInline
  enum Start {
    /// Makes the task that runs the closure (`.starting` until it is recorded).
    case makeTask(@Sendable () async -> ErasedOutcome)
    /// Lets the task made in the caller's context run.
    case open(Task<Void, Never>, RunStartGate)
    /// Ends the operation as cancelled: the closure never runs.
    case endCancelled
  }

  /// The queue starts the operation.
  mutating func start() -> Start {
    switch self {
    case .idle(let run):
      self = .starting
      return .makeTask(run)
    case .held(let task, let gate):
      self = .running(task)
      return .open(task, gate)
    case .running, .cancelled, .starting:
      return .endCancelled
    }
  }

  /// `main()` made the task for the closure; true if the operation was cancelled meanwhile (the
  /// task is to be cancelled).
  mutating func record(_ task: Task<Void, Never>) -> Bool {
    if case .cancelled = self { return true }
    self = .running(task)
    return false
  }

  /// The operation is cancelled: the task to cancel and the gate to discard, if any.
  mutating func cancel() -> (Task<Void, Never>?, RunStartGate?) {
    defer { self = .cancelled }
    switch self {
    case .running(let task): return (task, nil)
    case .held(let task, let gate): return (task, gate)
    case .idle, .cancelled, .starting: return (nil, nil)
    }
  }

  /// The task running the closure, if it runs.
  var runningTask: Task<Void, Never>? {
    if case .running(let task) = self { return task }
    return nil
  }

  /// The gate of a task made in its caller's context that has not been let go, if any.
  var heldGate: RunStartGate? {
    if case .held(_, let gate) = self { return gate }
    return nil
  }
}
