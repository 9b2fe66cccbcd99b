import AsyncBridge
import Dispatch
import FixtureServer
import Foundation
import LockedValue
import OperationCore
import OperationNetworking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Cancellation, cancel-all and caller deadlines racing retries on real timers: every caller
/// gets one outcome, the queue drains, the server sees no more requests than attempts, and each
/// operation's events keep their order.
@Suite struct NetworkingRetryStressTests {
  /// How a round interferes with its operation.
  private enum Interference: CaseIterable {
    case none, cancelOperation, cancelAll, cancelCallers, deadlines
  }

  @Test func cancellationRacingRetriesDeliversOnceAndKeepsEventsInOrder() async throws {
    // Each round has its own path: its first request gets 503, later ones 200.
    let served = Locked<[String: Int]>([:])
    let server = try FixtureHTTPServer { request in
      let count = served.withLock { counts in
        counts[request.path, default: 0] += 1
        return counts[request.path]!
      }
      return count == 1 ? .text("busy", status: 503) : RetryFixtures.success(attempt: count)
    }
    defer { server.stop() }
    let manager = OperationQueueManager(name: "networking-retry-stress")
    let events = EventLog(manager, hearing: .publishingThread)
    var generator = SeededGenerator(seed: UInt64.random(in: 1...UInt64.max))
    let budget = ContinuousClock.now + StressBudget.scaled(.seconds(4))
    var handlers: [Locked<[Result<RetryPayload, any Error>]>] = []
    var round = 0

    while round < 300, round < 20 || ContinuousClock.now < budget {
      round += 1
      let path = "/round/\(round)"
      let interference = Interference.allCases.randomElement(using: &generator)!
      let pause = Int.random(in: 0...3_000, using: &generator)
      let deadline = Duration.microseconds(Int.random(in: 500...4_000, using: &generator))
      let makeOperation: @Sendable () -> NetworkingOperation<RetryPayload> = {
        NetworkingOperation<RetryPayload>(
          request: URLRequest(url: server.url(path)), session: RetryFixtures.session,
          retryPolicy: RetryFixtures.fastPolicy())
      }
      // Every caller joins before the work starts: one that came after the end would
      // rightly start fresh work, and send more requests.
      manager.isSuspended = true
      let first = makeOperation()
      let handled = Locked<[Result<RetryPayload, any Error>]>([])
      manager.enqueue(first) { result in handled.withLock { $0.append(result) } }
      handlers.append(handled)
      let callers = (0..<3).map { _ in
        Task {
          try await manager.perform(
            makeOperation(), timeout: interference == .deadlines ? deadline : nil)
        }
      }
      let joined = 3 * round
      #expect(await eventually { events.count(of: .joined) == joined }, "round \(round)")
      manager.isSuspended = false

      try await Task.sleep(for: .microseconds(pause))
      switch interference {
      case .none, .deadlines: break
      case .cancelOperation: first.cancel()
      case .cancelAll: manager.cancelAllOperations()
      case .cancelCallers: callers.forEach { $0.cancel() }
      }

      for caller in callers {
        let outcome = try #require(await completing { await caller.result }, "round \(round)")
        #expect(Self.isAcceptable(outcome), "round \(round): \(outcome)")
      }
      #expect(await eventually(within: .seconds(30)) { handled.withLock { $0.count } == 1 })
      #expect(handled.withLock { $0.allSatisfy(Self.isAcceptable) }, "round \(round)")
      #expect(await becomesIdle(manager, within: .seconds(30)), "round \(round)")
      let requests = served.withLock { $0[path, default: 0] }
      #expect(requests <= 2, "round \(round): \(requests) requests, but the second succeeds")
    }

    #expect(handlers.allSatisfy { $0.withLock { $0.count } == 1 }, "a handler was called twice")
    let lifecycles = events.lifecycles()
    #expect(lifecycles.count == round, "one enqueued operation per round")
    for kinds in lifecycles {
      #expect(Self.isInOrder(kinds), "\(kinds)")
    }
  }

  /// `enqueued`, then joins, one optional `started` and `retrying`s after it, and one terminal
  /// `finished` last.
  private static func isInOrder(_ kinds: [OperationEvent.Kind]) -> Bool {
    guard kinds.first == .enqueued, case .finished? = kinds.last else { return false }
    var started = false
    for kind in kinds.dropFirst().dropLast() {
      switch kind {
      case .joined, .stalled: continue
      case .started where !started: started = true
      case .retrying where started: continue
      case .enqueued, .started, .retrying, .finished: return false
      }
    }
    return true
  }

  /// The value, cancellation or a timeout: never anything else, since the second attempt
  /// always succeeds.
  private static func isAcceptable(_ outcome: Result<RetryPayload, any Error>) -> Bool {
    switch outcome {
    case .success(let payload): payload.attempt == 2
    case .failure(let error): error is CancellationError || error is OperationTimeoutError
    }
  }
}
