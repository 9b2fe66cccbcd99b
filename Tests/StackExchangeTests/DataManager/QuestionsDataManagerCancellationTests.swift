import AsyncBridge
import Dispatch
import FixtureServer
import OperationCore
import TestSupport
import Testing

@testable import StackExchange

@Suite struct QuestionsDataManagerCancellationTests {
  @Test func alreadyCancelledTaskGetsCancellationErrorWithoutARequest() async throws {
    let harness = try DataManagerHarness(fixture: StackExchangeFixture())
    let events = harness.manager.makeEvents()

    let cancelled = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await harness.dataManager.questions(stackOverflow)
    }
    let error = failure(of: await completing { await cancelled.result })
    // A later call's request is the first event and the first request the server sees.
    let later = success(of: await asyncResult(harness.dataManager, stackOverflow))

    #expect(error is CancellationError, "got \(String(describing: error))")
    #expect(later != nil)
    #expect(harness.server.requestCount == 1)
    let firstEvent = await completing { await events.first { _ in true } }
    #expect(firstEvent??.kind == .enqueued)
    #expect(firstEvent??.callerCount == 1)
  }

  @Test func cancellingTheOnlyCallerMidRequestClosesTheConnection() async throws {
    // The answer comes long after a loaded machine has cancelled.
    let harness = try DataManagerHarness(fixture: StackExchangeFixture(latency: .seconds(60)))

    let caller = Task { try await harness.dataManager.questions(stackOverflow) }
    #expect(await harness.server.waitForRequests(1, timeout: .seconds(30)))
    caller.cancel()
    let error = failure(of: await completing { await caller.result })

    #expect(error is CancellationError, "got \(String(describing: error))")
    #expect(await harness.server.waitForAbandonedResponses(1, timeout: .seconds(30)))
    #expect(await completing { (try? await harness.manager.waitUntilIdle()) != nil } == true)
  }

  @Test func cancellingOneOfSeveralCallersKeepsTheRequestForTheOthers() async throws {
    // The server holds its answer until the test has seen the first caller leave (bounded, so
    // that a failing test cannot hold the connection thread for ever).
    let release = Gate()
    let fixture = StackExchangeFixture()
    let harness = try DataManagerHarness { request in
      _ = release.block()
      return fixture.respond(to: request)
    }
    let events = harness.manager.makeEvents()

    let leaving = Task { try await harness.dataManager.questions(stackOverflow) }
    let staying = Task { try await harness.dataManager.questions(stackOverflow) }
    let linedUp = await registrations(2, on: events)
    leaving.cancel()
    let leavingError = failure(of: await completing { await leaving.result })
    release.open()
    let stayingPage = success(of: await completing { await staying.result })

    #expect(linedUp)
    #expect(leavingError is CancellationError, "got \(String(describing: leavingError))")
    #expect(stayingPage?.items.count == 5)
    #expect(harness.questionRequests == 1)
    #expect(harness.server.abandonedResponseCount == 0)
  }
}
