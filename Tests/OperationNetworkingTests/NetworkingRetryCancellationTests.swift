import AsyncBridge
import FixtureServer
import Foundation
import LockedValue
import OperationBridgeTesting
import OperationCore
import OperationNetworking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Cancellation while a networking operation waits between attempts: whatever cancels it, the
/// wait ends at once and no further request reaches the server.
@Suite struct NetworkingRetryCancellationTests {
  let manager = OperationQueueManager(name: "networking-retry-cancellation")
  let server: FixtureHTTPServer
  let manualWaits = ManualRetryWaits(firesOnStart: false)

  init() throws {
    server = try ScriptedResponder([.text("busy", status: 503), RetryFixtures.success(attempt: 2)])
      .makeServer()
  }

  private func operation() -> NetworkingOperation<RetryPayload> {
    NetworkingOperation(
      request: URLRequest(url: server.url("/flaky")), session: RetryFixtures.session,
      retryPolicy: RetryFixtures.policy(waitingWith: manualWaits))
  }

  /// Waits until the first attempt failed and its wait started; nil (and a recorded issue)
  /// if that took more than 30 s.
  private func firstWait() async -> ManualRetryWait? {
    let wait = await manualWaits.startedWait(number: 1)
    if wait == nil { Issue.record("the operation never waited to retry") }
    return wait
  }

  /// The wait was cancelled, and even a timer firing after that sends no second request.
  private func expectNoFurtherAttempt(after wait: ManualRetryWait) async {
    // The waiters are resumed first, then the operation stops its work on the same thread.
    #expect(await eventually(within: .seconds(30)) { wait.isCancelled }, "the wait was left to run")
    wait.fire()
    #expect(await !server.waitForRequests(2, timeout: .milliseconds(200)))
    #expect(server.requestCount == 1)
  }

  @Test func lastWaiterLeavingEndsTheWaitAtOnce() async throws {
    defer { server.stop() }
    let operation = operation()
    let caller = Task { try await manager.perform(operation) }
    guard let wait = await firstWait() else { return }

    caller.cancel()

    let outcome = await completing { await caller.result }
    #expect(throws: CancellationError.self) { try outcome?.get() }
    #expect(operation.isCancelled)
    await expectNoFurtherAttempt(after: wait)
    #expect(await becomesIdle(manager))
  }

  /// A first caller starts the operation; once it waits to retry, a second caller (with
  /// `timeout`) joins, and the first leaves. Returns the wait, the operation and the second
  /// caller; nil (and a recorded issue) when a step did not happen within 30 s.
  private func secondCallerAloneDuringTheWait(
    timeout: Duration?
  ) async -> (ManualRetryWait, NetworkingOperation<RetryPayload>, Task<RetryPayload, any Error>)? {
    let events = EventLog(manager, hearing: .publishingThread)
    let operation = operation()
    let first = Task { try await manager.perform(operation) }
    guard let wait = await firstWait() else { return nil }
    let second = Task { try await manager.perform(self.operation(), timeout: timeout) }
    guard await eventually({ events.kinds(of: operation).contains(.joined) }) else {
      Issue.record("the second caller did not join")
      return nil
    }
    first.cancel()
    guard case .failure(is CancellationError)? = await completing({ await first.result }) else {
      Issue.record("the first caller did not leave with CancellationError")
      return nil
    }
    return (wait, operation, second)
  }

  @Test func aWaiterJoiningDuringTheWaitSharesTheNextAttemptAfterTheFirstLeaves() async throws {
    defer { server.stop() }
    guard let (wait, _, staying) = await secondCallerAloneDuringTheWait(timeout: nil) else {
      return
    }
    #expect(!wait.isCancelled, "the other waiter still wants the value")

    wait.fire()
    let value = await completing { try? await staying.value }
    #expect(value == RetryPayload(attempt: 2))
    #expect(server.requestCount == 2)
  }

  @Test func cancelAllEndsTheWaitAtOnce() async throws {
    defer { server.stop() }
    let operation = operation()
    let delivered = Locked<Result<RetryPayload, any Error>?>(nil)
    manager.enqueue(operation) { result in delivered.withLock { $0 = result } }
    guard let wait = await firstWait() else { return }

    manager.cancelAllOperations()

    // Handlers without a callback queue run on the cancelling thread: already delivered.
    let outcome = try #require(delivered.withLock { $0 })
    #expect(throws: CancellationError.self) { try outcome.get() }
    #expect(operation.isFinished)
    await expectNoFurtherAttempt(after: wait)
  }

  @Test func callerDeadlineEndsTheWaitWhenItWasTheLastWaiter() async throws {
    defer { server.stop() }
    // The deadline is what ends the last interest in the operation.
    guard
      let (wait, operation, caller) = await secondCallerAloneDuringTheWait(
        timeout: .milliseconds(200))
    else { return }

    let outcome = await completing { await caller.result }

    #expect(throws: OperationTimeoutError.self) { try outcome?.get() }
    if case .failure(let error as OperationTimeoutError)? = outcome {
      #expect(error.scope == .caller)
    }
    #expect(operation.isCancelled)
    await expectNoFurtherAttempt(after: wait)
  }

  @Test func operationTimeoutEndsTheWait() async throws {
    defer { server.stop() }
    // The timeout runs on a test clock: it falls due only once the first attempt has failed.
    let clock = TestClock()
    let manager = OperationQueueManager(name: "networking-retry-timeout", clock: clock)
    let operation = operation()
    operation.timeout = .seconds(1)
    let delivered = Locked<Result<RetryPayload, any Error>?>(nil)
    manager.enqueue(operation) { result in delivered.withLock { $0 = result } }
    guard let wait = await firstWait() else { return }
    #expect(delivered.withLock { $0 } == nil, "the timeout fired before the clock reached it")

    await clock.advance(by: .seconds(1))

    // Handlers without a callback queue run on the thread that timed the operation out.
    let outcome = try #require(delivered.withLock { $0 })
    #expect(throws: OperationTimeoutError.self) { try outcome.get() }
    await expectNoFurtherAttempt(after: wait)
  }

  @Test func operationKeepingItsSlotReleasesItAsSoonAsTheWaitIsCancelled() async throws {
    defer { server.stop() }
    let operation = SlotKeeping<RetryPayload>(
      request: URLRequest(url: server.url("/flaky")), session: RetryFixtures.session,
      retryPolicy: RetryFixtures.policy(waitingWith: manualWaits))
    manager.enqueue(operation)
    guard let wait = await firstWait() else { return }

    operation.cancel()

    // Nothing else would end the work: the cancel itself releases the slot.
    #expect(operation.isFinished)
    await expectNoFurtherAttempt(after: wait)
    #expect(await becomesIdle(manager))
  }

  @Test func realTimerWaitIsCancelledWithoutWaitingItOut() async throws {
    defer { server.stop() }
    let events = EventLog(manager, hearing: .publishingThread)
    let operation = SlotKeeping<RetryPayload>(
      request: URLRequest(url: server.url("/flaky")), session: RetryFixtures.session,
      retryPolicy: .exponential(initialDelay: .seconds(3_600), maxDelay: .seconds(3_600)))
    manager.enqueue(operation)
    #expect(
      await eventually {
        events.kinds(of: operation).contains { if case .retrying = $0 { true } else { false } }
      })

    operation.cancel()

    #expect(operation.isFinished)
    #expect(await becomesIdle(manager, within: .seconds(30)))
    #expect(server.requestCount == 1)
  }
}
