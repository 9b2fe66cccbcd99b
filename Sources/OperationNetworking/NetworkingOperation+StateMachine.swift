/// The data task's lifecycle inside a ``NetworkingOperation``, attempts and the waits between
/// them included, as a value type. Each event returns what to do once the lock is unlocked;
/// nothing here calls out.
///
/// Generic over the task and the wait so it can be tested without `URLSession` or timers.
struct DataTaskStateMachine<Task, Wait> {
  enum State {
    /// `main()` has not run.
    case idle
    /// `main()`, or the end of a retry wait, is creating the data task for `attempt` (from 1).
    case starting(attempt: Int)
    /// The data task of `attempt` exists and has been (or is about to be) resumed.
    case running(Task, attempt: Int)
    /// The data task of `attempt` delivered its completion; the response is being processed.
    case completed(attempt: Int)
    /// `attempt` failed and will be retried once `Wait` ends (it is started, or about to be).
    case waitingToRetry(Wait, attempt: Int)
    /// The operation was cancelled or timed out; any task or wait is, or will be, cancelled.
    case cancelled
  }

  /// What `main()` does.
  enum StartAction: Equatable {
    /// Create the data task of the first attempt and report it with
    /// ``taskCreated(_:attempt:)``.
    case createTask
    /// The operation was cancelled first: create nothing, just finish (which only releases the
    /// queue slot, if the operation kept it; the outcome is settled already).
    case finishCancelled
    /// `main()` ran before: do nothing.
    case ignore
  }

  /// What the data task's completion handler does.
  enum CompletionAction: Equatable {
    /// Map the response of `attempt` to an outcome: finish with it, or ask to retry with
    /// ``retryScheduled(_:)``.
    case process(attempt: Int)
    /// The operation was cancelled: finish, which only releases the queue slot if the operation
    /// kept it (its waiters already have their outcome), and ignore the response.
    case finishCancelled
    /// A second completion: do nothing.
    case ignore
  }

  /// What `main()`, or the end of a wait, does with the task it created.
  enum TaskCreatedAction: Equatable {
    /// Resume it.
    case resume
    /// Cancellation came first: cancel the task (off the lock, on another queue) so it leaves
    /// the session, and never resume it.
    case cancel
    /// The task already completed (someone else cancelled it), and a later attempt may have
    /// begun since: nothing to do.
    case none
  }

  /// What cancelling (or a timeout) stops.
  enum CancelAction {
    /// Nothing runs: no task yet (one created later is cancelled by
    /// ``taskCreated(_:attempt:)``), or
    /// a response is being processed (its end sees the cancellation).
    case none
    /// Cancel the running data task; its completion then finishes the operation.
    case cancelTask(Task)
    /// Cancel the wait and finish at once: nothing else is left to end the operation.
    case cancelWait(Wait)
  }

  /// What the processing of a failed attempt does with the wait it made.
  enum RetryScheduledAction {
    /// Start the wait.
    case start
    /// Cancellation came first: cancel the unused wait and finish.
    case discardAndFinishCancelled
  }

  /// What the end of a wait does.
  enum WaitEndedAction: Equatable {
    /// Create the data task of `attempt` and report it with ``taskCreated(_:attempt:)``.
    case createTask(attempt: Int)
    /// The wait ended as it was being cancelled: do nothing.
    case ignore
  }

  private(set) var state = State.idle

  /// `main()` runs.
  mutating func startRequested() -> StartAction {
    switch state {
    case .idle:
      state = .starting(attempt: 1)
      return .createTask
    case .cancelled:
      return .finishCancelled
    case .starting, .running, .completed, .waitingToRetry:
      return .ignore
    }
  }

  /// `main()`, or the end of a wait, created `task` for `attempt`.
  mutating func taskCreated(_ task: Task, attempt: Int) -> TaskCreatedAction {
    switch state {
    case .starting(let starting) where starting == attempt:
      state = .running(task, attempt: attempt)
      return .resume
    case .cancelled:
      return .cancel
    case .starting, .running, .completed, .waitingToRetry:
      // Its completion came first (someone else cancelled it) and was processed, and a later
      // attempt may have begun since.
      return .none
    case .idle:
      preconditionFailure("a data task was created without startRequested()")
    }
  }

  /// The operation was cancelled or timed out.
  mutating func cancel() -> CancelAction {
    switch state {
    case .idle, .starting, .completed:
      state = .cancelled
      return .none
    case .running(let task, _):
      state = .cancelled
      return .cancelTask(task)
    case .waitingToRetry(let wait, _):
      state = .cancelled
      return .cancelWait(wait)
    case .cancelled:
      return .none
    }
  }

  /// The data task delivered its completion.
  mutating func taskCompleted() -> CompletionAction {
    switch state {
    case .starting(let attempt), .running(_, let attempt):
      state = .completed(attempt: attempt)
      return .process(attempt: attempt)
    case .cancelled:
      return .finishCancelled
    case .completed, .waitingToRetry:
      return .ignore
    case .idle:
      preconditionFailure("a data task completed before startRequested()")
    }
  }

  /// The processing of a failed attempt made `wait`, to retry once it ends.
  mutating func retryScheduled(_ wait: Wait) -> RetryScheduledAction {
    switch state {
    case .completed(let attempt):
      state = .waitingToRetry(wait, attempt: attempt)
      return .start
    case .cancelled:
      return .discardAndFinishCancelled
    case .idle, .starting, .running, .waitingToRetry:
      preconditionFailure("a retry was scheduled without a processed completion")
    }
  }

  /// The wait ended.
  mutating func waitEnded() -> WaitEndedAction {
    switch state {
    case .waitingToRetry(_, let attempt):
      state = .starting(attempt: attempt + 1)
      return .createTask(attempt: attempt + 1)
    case .cancelled:
      return .ignore
    case .idle, .starting, .running, .completed:
      preconditionFailure("a wait ended that was not started")
    }
  }
}
