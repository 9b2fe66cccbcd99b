import OperationCore
import Testing

@testable import OperationNetworking

/// The data task state machine's attempts and the waits between them.
@Suite struct NetworkingRetryStateMachineTests {
  private typealias Machine = DataTaskStateMachine<String, String>

  /// A machine whose first attempt completed and is being processed.
  private func processingFirstAttempt() -> Machine {
    var machine = Machine()
    _ = machine.startRequested()
    _ = machine.taskCreated("task 1", attempt: 1)
    _ = machine.taskCompleted()
    return machine
  }

  @Test func failedAttemptWaitsThenSendsTheNextAttemptWithItsNumber() {
    var machine = processingFirstAttempt()
    guard case .start = machine.retryScheduled("wait 1") else {
      Issue.record("the wait was not started")
      return
    }
    #expect(machine.waitEnded() == .createTask(attempt: 2))
    #expect(machine.taskCreated("task 2", attempt: 2) == .resume)
    #expect(machine.taskCompleted() == .process(attempt: 2))
  }

  @Test func cancellingDuringTheWaitHandsOutTheWaitOnceAndItsLateEndIsIgnored() {
    var machine = processingFirstAttempt()
    _ = machine.retryScheduled("wait 1")
    guard case .cancelWait(let wait) = machine.cancel() else {
      Issue.record("cancel did not hand out the wait")
      return
    }
    #expect(wait == "wait 1")
    guard case .none = machine.cancel() else {
      Issue.record("the wait was handed out twice")
      return
    }
    #expect(machine.waitEnded() == .ignore, "a timer firing as it is cancelled sends nothing")
  }

  @Test func cancellingWhileTheResponseIsProcessedDiscardsTheRetry() {
    var machine = processingFirstAttempt()
    guard case .none = machine.cancel() else {
      Issue.record("nothing runs while a response is processed")
      return
    }
    guard case .discardAndFinishCancelled = machine.retryScheduled("wait 1") else {
      Issue.record("a retry was scheduled after cancellation")
      return
    }
  }

  @Test func cancellingWhileTheNextAttemptIsCreatedCancelsItsTask() {
    var machine = processingFirstAttempt()
    _ = machine.retryScheduled("wait 1")
    #expect(machine.waitEnded() == .createTask(attempt: 2))
    guard case .none = machine.cancel() else {
      Issue.record("no task exists yet")
      return
    }
    #expect(machine.taskCreated("task 2", attempt: 2) == .cancel)
    #expect(machine.taskCompleted() == .finishCancelled)
  }

  @Test func aStaleTaskReportedAfterTheNextAttemptBeganIsLeftAlone() {
    // Someone else cancelled task 1 before it was stored; its failure was retried at once.
    var machine = Machine()
    _ = machine.startRequested()
    #expect(machine.taskCompleted() == .process(attempt: 1))
    _ = machine.retryScheduled("wait 1")
    #expect(machine.waitEnded() == .createTask(attempt: 2))
    #expect(machine.taskCreated("task 1", attempt: 1) == .none)
    #expect(machine.taskCreated("task 2", attempt: 2) == .resume)
  }

  @Test func cancellingTheSecondAttemptHandsOutItsTask() {
    var machine = processingFirstAttempt()
    _ = machine.retryScheduled("wait 1")
    _ = machine.waitEnded()
    _ = machine.taskCreated("task 2", attempt: 2)
    guard case .cancelTask(let task) = machine.cancel() else {
      Issue.record("the running task was not handed out")
      return
    }
    #expect(task == "task 2")
  }
}
