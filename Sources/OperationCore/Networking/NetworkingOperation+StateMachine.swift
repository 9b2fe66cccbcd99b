/// The data task's lifecycle inside a ``NetworkingOperation``, as a value type. Each event
/// returns what to do with the task once the lock is released; nothing here calls out.
///
/// Generic over the task so it can be tested without `URLSession`.
struct DataTaskStateMachine<Task> {
  enum State {
    /// `main()` has not run.
    case idle
    /// `main()` is creating the data task.
    case starting
    /// The data task exists and has been (or is about to be) resumed.
    case running(Task)
    /// The operation was cancelled or timed out; any task is, or will be, cancelled.
    case cancelled
    /// The data task delivered its completion; the response is being processed.
    case completed
  }

  /// What `main()` does.
  enum StartAction: Equatable {
    /// Create the data task and report it with ``taskCreated(_:)``.
    case createTask
    /// The operation was cancelled first: create nothing, just finish (which only releases the
    /// queue slot, if the operation kept it; the outcome is settled already).
    case finishCancelled
    /// `main()` ran before: do nothing.
    case ignore
  }

  /// What the data task's completion handler does.
  enum CompletionAction: Equatable {
    /// Map the response to the operation's outcome and finish with it.
    case process
    /// The operation was cancelled: finish, which only releases the queue slot if the operation
    /// kept it (its waiters already have their outcome), and ignore the response.
    case finishCancelled
    /// A second completion: do nothing.
    case ignore
  }

  /// What `main()` does with the task it created.
  enum TaskCreatedAction: Equatable {
    /// Resume it.
    case resume
    /// Cancellation came first: cancel the task (off the lock, on another queue) so it leaves
    /// the session, and never resume it.
    case cancel
    /// The task already completed (someone else cancelled it): nothing to do.
    case none
  }

  private(set) var state = State.idle

  /// `main()` runs.
  mutating func startRequested() -> StartAction {
    switch state {
    case .idle:
      state = .starting
      return .createTask
    case .cancelled:
      return .finishCancelled
    case .starting, .running, .completed:
      return .ignore
    }
  }

  /// `main()` created `task`.
  mutating func taskCreated(_ task: Task) -> TaskCreatedAction {
    switch state {
    case .starting:
      state = .running(task)
      return .resume
    case .cancelled:
      return .cancel
    case .completed:
      return .none
    case .idle, .running:
      preconditionFailure("a data task was created without startRequested()")
    }
  }

  /// The operation was cancelled or timed out. Returns the task to cancel, if one is running;
  /// one created later is cancelled by ``taskCreated(_:)``.
  mutating func cancel() -> Task? {
    switch state {
    case .idle, .starting:
      state = .cancelled
      return nil
    case .running(let task):
      state = .cancelled
      return task
    case .cancelled, .completed:
      return nil
    }
  }

  /// The data task delivered its completion.
  mutating func taskCompleted() -> CompletionAction {
    switch state {
    case .idle, .starting, .running:
      state = .completed
      return .process
    case .cancelled:
      return .finishCancelled
    case .completed:
      return .ignore
    }
  }
}
