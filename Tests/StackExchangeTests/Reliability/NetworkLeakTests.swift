import AsyncBridge
import Dispatch
import FixtureServer
import Foundation
import LockedValue
import OperationBridgeTesting
import OperationCore
import OperationNetworking
import TestSupport
import Testing

@testable import StackExchange

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The session of these tests, so that its list of tasks holds only theirs. Never invalidated
/// (invalidating sessions has known teardown crashes in corelibs 6.3.1); tests find their
/// task by URL. Its idle timeout outlasts the held responses (30 s): the cases end by the
/// operation's own timeout or cancellation, never the session's.
private let leakSession = URLSession.makeNetworkingSession(timeout: .seconds(60))

/// A networking operation holds its data task while the request runs, and the task's
/// completion handler holds the operation: a cycle that must end with the request, however it
/// ends. Nothing else (manager, data manager) may outlive the work either. The session is
/// injected and shared, so it is not expected to go away.
@Suite struct NetworkLeakTests {
  enum Ending: String, CaseIterable, Sendable {
    case completion
    case cancellation
    case timeout
    case failure
  }

  @Test(arguments: Ending.allCases)
  func networkingOperationAndItsDataTaskAreFreed(after ending: Ending) async throws {
    let survivors = try await Self.runNetworkingOperation(ending)
    #expect(await eventually { survivors.operation.isFreed }, "operation")
    #expect(await eventually { survivors.dataTask.isFreed }, "data task")
    #expect(await eventually { survivors.manager.isFreed }, "manager")
  }

  @Test(arguments: Ending.allCases)
  func questionsDataManagerAndItsManagerAreFreed(after ending: Ending) async throws {
    let survivors = try await Self.runDataManagerCall(ending)
    #expect(await eventually { survivors.dataManager.isFreed }, "data manager")
    #expect(await eventually { survivors.manager.isFreed }, "manager")
  }

  // MARK: Scenarios

  private struct OperationSurvivors {
    let operation: WeakReference<NetworkingOperation<QuestionsPage>>
    let dataTask: WeakReference<URLSessionTask>
    let manager: WeakReference<OperationQueueManager>
  }

  /// A response that ends as asked; for a completion or a failure, only once `release` (if
  /// any) opens, so the test can find the data task first; for a cancellation or a timeout,
  /// never in time.
  private static func responder(
    for ending: Ending, release: Gate? = nil
  ) -> @Sendable (FixtureRequest) -> FixtureResponse {
    { request in
      var response = StackExchangeFixture().respond(to: request)
      switch ending {
      case .completion:
        // Held until the test has found the data task (it releases it then).
        _ = release?.block()
      case .cancellation, .timeout:
        // Longer than the operation's timeout, which is longer than finding its data task
        // takes even while the TSan suite's stress tests hold both cores.
        response.latency = .seconds(30)
      case .failure:
        _ = release?.block()
        response.fault = .resetMidBody
      }
      return response
    }
  }

  private static func runNetworkingOperation(_ ending: Ending) async throws -> OperationSurvivors {
    let release = Gate()
    let server = try FixtureHTTPServer(responder: responder(for: ending, release: release))
    // The operation's timeout runs on the manager's clock, which moves only when the test
    // advances it: the test finds the data task first however slowly the machine runs.
    let clock = TestClock()
    let manager = OperationQueueManager(name: "leak.networking.\(ending)", clock: clock)
    let url = server.url("/questions?site=stackoverflow&leak=\(ending)")
    let operation = NetworkingOperation<QuestionsPage>(
      request: URLRequest(url: url), session: leakSession)
    if ending == .timeout { operation.timeout = .seconds(12) }
    let delivered = Locked<Result<QuestionsPage, any Error>?>(nil)
    manager.enqueue(operation) { result in delivered.withLock { $0 = result } }

    let found = await Self.dataTask(of: operation, within: .testTimeout)
    release.open()
    let dataTask = try #require(found)
    #expect(await server.waitForRequests(1, timeout: .seconds(30)))
    if ending == .cancellation { operation.cancel() }
    if ending == .timeout { await clock.advance(by: .seconds(12)) }
    #expect(await eventually(within: .seconds(30)) { delivered.withLock { $0 } != nil })
    #expect(await becomesIdle(manager))
    #expect(operation.isFinished)
    let result = delivered.withLock { $0 }
    switch ending {
    case .completion: #expect((try? result?.get())?.items.isEmpty == false)
    case .cancellation: #expect(throws: CancellationError.self) { try result?.get() }
    case .timeout: #expect(throws: OperationTimeoutError.self) { try result?.get() }
    case .failure: #expect(throws: NetworkingError.self) { try result?.get() }
    }
    // The cancelled data task must have reached its end (its handler ran) before it can go.
    #expect(await eventually { dataTask.state == .completed })
    return OperationSurvivors(
      operation: WeakReference(operation), dataTask: WeakReference(dataTask),
      manager: WeakReference(manager))
  }

  /// The data task of `operation`, looked for until it runs or `timeout` passes. (Not through
  /// `leakSession.getAllTasks`: on corelibs it races with the other cases' tasks starting and
  /// ending, and can crash.)
  private static func dataTask(
    of operation: NetworkingOperation<QuestionsPage>, within timeout: Duration
  ) async -> URLSessionDataTask? {
    var found: URLSessionDataTask?
    _ = await eventually(within: timeout) {
      found = operation.runningDataTask
      return found != nil
    }
    return found
  }

  private struct DataManagerSurvivors {
    let dataManager: WeakReference<QuestionsDataManager>
    let manager: WeakReference<OperationQueueManager>
  }

  private static func runDataManagerCall(_ ending: Ending) async throws -> DataManagerSurvivors {
    let clock = TestClock()
    let harness = try DataManagerHarness(
      requestTimeout: .seconds(10), clock: clock, responder: responder(for: ending))
    let dataManager = harness.dataManager
    let caller = Task { try await dataManager.questions(stackOverflow) }
    if ending == .cancellation {
      #expect(await harness.server.waitForRequests(1, timeout: .seconds(30)))
      caller.cancel()
    }
    if ending == .timeout {
      try await clock.waitUntilTimers(1)
      await clock.advance(by: .seconds(10))
    }
    let result = await completing { await caller.result }
    switch ending {
    case .completion: #expect((try? result?.get())?.items.count == 5)
    case .cancellation: #expect(throws: CancellationError.self) { try result?.get() }
    case .timeout: #expect(throws: OperationTimeoutError.self) { try result?.get() }
    case .failure: #expect(throws: NetworkingError.self) { try result?.get() }
    }
    #expect(await becomesIdle(harness.manager))
    return DataManagerSurvivors(
      dataManager: WeakReference(harness.dataManager), manager: WeakReference(harness.manager))
  }
}
