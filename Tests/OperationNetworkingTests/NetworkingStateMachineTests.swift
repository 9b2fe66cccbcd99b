import OperationCore
import TestSupport
import Testing

@testable import OperationNetworking

/// The data task state machine: early and late cancellation are separate paths.
@Suite struct NetworkingStateMachineTests {
  private typealias Machine = DataTaskStateMachine<String, String>

  private enum Event {
    /// `main()` runs and, if told to, creates the task "task".
    case main
    case cancel
    case completion
  }

  private enum Output: Equatable {
    /// `main()` did not create a task; what it did instead.
    case notStarted(Machine.StartAction)
    /// `main()` created the task; what it did with it.
    case created(Machine.TaskCreatedAction)
    case cancelled(task: String?)
    case completed(Machine.CompletionAction)
  }

  /// Plays `events` on a fresh machine and returns what each one told the caller to do.
  private func play(_ events: [Event]) -> [Output] {
    var machine = Machine()
    return events.map { event in
      switch event {
      case .main:
        let start = machine.startRequested()
        guard start == .createTask else { return .notStarted(start) }
        return .created(machine.taskCreated("task", attempt: 1))
      case .cancel:
        guard case .cancelTask(let task) = machine.cancel() else { return .cancelled(task: nil) }
        return .cancelled(task: task)
      case .completion:
        return .completed(machine.taskCompleted())
      }
    }
  }

  @Test func runningTaskIsHandedOutOnceForCancellationAndItsCancelledCompletionIgnored() {
    #expect(
      play([.main, .cancel, .cancel, .completion]) == [
        .created(.resume), .cancelled(task: "task"), .cancelled(task: nil),
        .completed(.finishCancelled),
      ])
  }

  @Test func cancellationBeforeMainMeansNoTaskIsCreated() {
    #expect(play([.cancel, .main]) == [.cancelled(task: nil), .notStarted(.finishCancelled)])
  }

  @Test func cancellationWhileMainCreatesTheTaskCancelsItOnceCreated() {
    var machine = Machine()
    let start = machine.startRequested()
    let cancelled = machine.cancel()
    let created = machine.taskCreated("task", attempt: 1)
    let processed = machine.taskCompleted()
    #expect(start == .createTask)
    guard case .none = cancelled else {
      Issue.record("no task to cancel yet")
      return
    }
    #expect(created == .cancel, "main() cancels the task it just created, never resumes it")
    #expect(processed == .finishCancelled)
  }

  @Test func completionIsProcessedOnceAndLateCancellationHasNothingToCancel() {
    #expect(
      play([.main, .completion, .cancel, .completion]) == [
        .created(.resume), .completed(.process(attempt: 1)), .cancelled(task: nil),
        .completed(.finishCancelled),
      ])
  }

  @Test func completionBeforeTheTaskIsStoredIsProcessedAndTheTaskLeftAlone() {
    // Someone else cancelled the task between its creation and `taskCreated`.
    var machine = Machine()
    let start = machine.startRequested()
    let processed = machine.taskCompleted()
    let created = machine.taskCreated("task", attempt: 1)
    #expect(start == .createTask && processed == .process(attempt: 1))
    #expect(created == TaskCreatedAction.none)
  }

  @Test func mainRunsOnlyOnce() {
    #expect(play([.main, .main]) == [.created(.resume), .notStarted(.ignore)])
  }

  private typealias TaskCreatedAction = Machine.TaskCreatedAction
}
