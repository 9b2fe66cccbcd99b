import LockedValue
import OperationCore

/// What a run's task hands its closure's outcome to: the operation that started it.
@usableFromInline
protocol RunOwner: AnyObject, Sendable {
  /// Ends the operation with the closure's outcome. Only the first call counts.
  func settle(erased outcome: ErasedOutcome)
}

/// The task executor a run's task prefers: it holds the task's first job, so a task made in its
/// caller's context (which copies the caller's task-local values and takes its priority) starts
/// only when its operation does, and then on the thread that starts it, with no hop. The task's
/// later jobs go to the global concurrent executor.
///
/// The task holds its gate (a task retains the executor it prefers), and the gate holds nothing
/// else once the task has taken its owner: no cycle through the operation.
@usableFromInline
final class StartGate: TaskExecutor, @unchecked Sendable {
  // State lives in `state`, guarded by its lock.
  private let state = Locked(State.awaitingTask)

  private enum State: Sendable {
    /// The task is being made; its first job comes next.
    case awaitingTask
    /// The task's first job, held until the operation starts or goes.
    case holding(UnownedJob)
    /// The first job was let go: with the owner it settles (nil when the operation went
    /// without starting), until the task takes it.
    case opened((any RunOwner)?)
    /// The task took its owner: later jobs pass to the global concurrent executor.
    case passing
  }

  @usableFromInline
  init() {}

  /// Holds the task's first job; passes on every later one.
  @usableFromInline
  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let held = state.withLock { state -> Bool in
      guard case .awaitingTask = state else { return false }
      state = .holding(job)
      return true
    }
    if !held { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
  }

  /// Starts the task for `owner` on the calling thread: it runs until its first suspension
  /// before this returns.
  func start(for owner: any RunOwner) {
    guard let job = open(owner) else { return }
    job.runSynchronously(on: asUnownedTaskExecutor())
  }

  /// Lets the task go without running its closure (the operation was cancelled before it
  /// started, or went without starting): it ends on the global concurrent executor.
  func discard() {
    guard let job = open(nil) else { return }
    globalConcurrentExecutor.enqueue(ExecutorJob(job))
  }

  /// The owner the task settles, once (nil: the task ends without running its closure).
  @usableFromInline
  func takeOwner() -> (any RunOwner)? {
    state.withLock { state in
      guard case .opened(let owner) = state else { return nil }
      state = .passing
      return owner
    }
  }

  /// Takes the held job, recording `owner` for the task; nil if the gate was opened before.
  private func open(_ owner: (any RunOwner)?) -> UnownedJob? {
    state.withLock { state in
      guard case .holding(let job) = state else { return nil }
      state = .opened(owner)
      return job
    }
  }
}
