import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// An operation's own timeout, on its manager's clock: a test clock here, advanced once the
/// operation has started and armed it.
@Suite struct TimeoutTests {
  @Test func hungOperationTimesOutWithADistinctError() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "timeout.hung", clock: clock)
    let results = ResultRecorder()
    let operation = ManualOperation()
    operation.name = "Hung"
    operation.timeout = .milliseconds(40)
    manager.enqueue(operation) { results.record($0) }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .milliseconds(39))
    #expect(results.count == 0)
    await clock.advance(by: .milliseconds(1))

    #expect(await results.wait(forCount: 1))
    let failure = try #require(results.values.first?.failure)
    #expect(!(failure is CancellationError))
    let timeout = try #require(failure as? OperationTimeoutError)
    #expect(timeout == OperationTimeoutError(timeout: .milliseconds(40), operationName: "Hung"))
    #expect(operation.isCancelled)
    #expect(operation.isFinished)
    #expect(operation.result?.failure is OperationTimeoutError)
    #expect(await operation.cancelHookCalled.wait())
    #expect(operation.cancelHookCallCount == 1)
    #expect(await becomesIdle(manager))

    // The work ends late: nothing changes.
    operation.release(1)
    #expect(results.count == 1)
    #expect(operation.result?.failure is OperationTimeoutError)
  }

  @Test func timeoutFreesTheSlotForTheNextOperation() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(
      name: "timeout.slot", maxConcurrentOperationCount: 1, clock: clock)
    let hung = ManualOperation()
    hung.timeout = .milliseconds(40)
    let next = ManualOperation(ending: .returning(2))
    let results = ResultRecorder()
    manager.enqueue(hung) { results.record($0) }
    manager.enqueue(next) { results.record($0) }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .milliseconds(40))

    #expect(await results.wait(forCount: 2))
    #expect(results.values.first?.failure is OperationTimeoutError)
    #expect(results.values.last?.value == 2)
    #expect(await becomesIdle(manager))
  }

  @Test func timeoutFreesTheSlotEvenWhenCancellationKeepsIt() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(
      name: "timeout.keepSlot", maxConcurrentOperationCount: 1, clock: clock)
    let hung = ManualOperation(keepsSlotWhenCancelled: true)
    hung.timeout = .milliseconds(40)
    let next = ManualOperation(ending: .returning(2))
    manager.enqueue(hung)
    manager.enqueue(next)
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .milliseconds(40))

    #expect(await next.started.wait())
    #expect(hung.isFinished)
    // A timeout calls the hook on a queue of its own, which need not have run by now.
    #expect(await hung.cancelHookCalled.wait())
    #expect(hung.cancelHookCallCount == 1)
    #expect(await becomesIdle(manager))
  }

  @Test func operationFinishingBeforeItsTimeoutIsUnaffected() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "timeout.fast", clock: clock)
    let results = ResultRecorder()
    let operation = ManualOperation(ending: .returning(3))
    operation.timeout = .milliseconds(30)
    manager.enqueue(operation) { results.record($0) }
    #expect(await becomesIdle(manager))

    // Let the timer fire: it must find nothing to do.
    await clock.advance(by: .milliseconds(80))
    #expect(results.values.compactMap(\.value) == [3])
    #expect(!operation.isCancelled)
    #expect(operation.cancelHookCallCount == 0)
    #expect(try operation.result?.get() == 3)
  }

  @Test func timeoutCountsFromStartNotFromEnqueue() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "timeout.fromStart", clock: clock)
    manager.isSuspended = true
    let results = ResultRecorder()
    let operation = ManualOperation(ending: .returning(4))
    operation.timeout = .milliseconds(30)
    manager.enqueue(operation) { results.record($0) }

    // Pending longer than the timeout: it must not expire before the queue starts it.
    await clock.advance(by: .milliseconds(80))
    #expect(results.count == 0)
    #expect(clock.pendingTimers == 0, "the timeout was armed before the operation started")
    manager.isSuspended = false

    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.value == 4)
    #expect(!operation.isCancelled)
  }

  @Test func timeoutErrorDescribesTheOperation() {
    let error = OperationTimeoutError(timeout: .seconds(5), operationName: "FetchQuestions")
    #expect(error.description.contains("FetchQuestions"))
    #expect(error != OperationTimeoutError(timeout: .seconds(6), operationName: "FetchQuestions"))
    #expect(OperationTimeoutError(timeout: .seconds(1)).operationName == nil)
  }
}
