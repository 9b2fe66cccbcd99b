import Dispatch
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

/// Cancellation and timeouts of a networking operation, over real HTTP.
@Suite struct NetworkingCancellationTests {
  let server: FixtureHTTPServer
  let manager = OperationQueueManager(name: "networking-cancellation")

  init() throws {
    server = try FixtureHTTPServer { request in
      switch request.path {
      case "/hang": .hanging
      case "/ok": .json(NetworkingFixtures.payload)
      default: .text("no route for \(request.path)", status: 404)
      }
    }
  }

  private func operation(_ path: String) -> NetworkingOperation<NetworkingPayload> {
    NetworkingOperation(
      request: URLRequest(url: server.url(path)), session: NetworkingFixtures.session)
  }

  @Test func cancellingMidRequestResumesTheWaiterAtOnceAndClosesTheConnection() async throws {
    defer { server.stop() }
    let operation = operation("/hang")
    let delivered = Locked<Result<NetworkingPayload, any Error>?>(nil)
    manager.enqueue(operation) { result in delivered.withLock { $0 = result } }
    #expect(await server.waitForRequests(1, timeout: .seconds(30)))

    operation.cancel()

    // A waiter without a callback queue is resumed on the cancelling thread, before cancel()
    // returns: promptly means "already".
    let outcome = try #require(delivered.withLock { $0 })
    #expect(throws: CancellationError.self) { try outcome.get() }
    #expect(operation.isFinished)
    // The data task was cancelled: the server sees the client close the connection.
    #expect(await server.waitForAbandonedResponses(1, timeout: .seconds(30)))
  }

  @Test func cancellingAnAwaitingCallerResumesItWithCancellationError() async throws {
    defer { server.stop() }
    let operation = operation("/hang")
    let waiter = Task { await networkingResult(of: operation, on: manager) }
    #expect(await server.waitForRequests(1, timeout: .seconds(30)))
    operation.cancel()
    await #expect(throws: CancellationError.self) { try await value(of: waiter)?.get() }
    #expect(await server.waitForAbandonedResponses(1, timeout: .seconds(30)))
  }

  @Test func operationKeepingItsSlotFinishesOnceTheDataTaskHasStopped() async throws {
    defer { server.stop() }
    let operation = SlotKeeping<NetworkingPayload>(
      request: URLRequest(url: server.url("/hang")), session: NetworkingFixtures.session)
    let waiter = Task { await networkingResult(of: operation, on: manager) }
    #expect(await server.waitForRequests(1, timeout: .seconds(30)))
    operation.cancel()
    await #expect(throws: CancellationError.self) { try await value(of: waiter)?.get() }
    // The slot is released when the data task reports its cancellation, not before.
    #expect(await eventually { operation.isFinished && manager.isIdle })
    #expect(await server.waitForAbandonedResponses(1, timeout: .seconds(30)))
  }

  @Test func cancellingBeforeTheQueueStartsItSendsNoRequest() async throws {
    defer { server.stop() }
    manager.isSuspended = true
    let operation = operation("/ok")
    let waiter = Task { await networkingResult(of: operation, on: manager) }
    #expect(await eventually { manager.outstandingOperationCount == 1 })
    operation.cancel()
    await #expect(throws: CancellationError.self) { try await value(of: waiter)?.get() }
    manager.isSuspended = false
    #expect(await eventually { manager.isIdle })
    #expect(operation.isFinished)
    // Give a stray request time to arrive before asserting there was none.
    try await Task.sleep(for: .milliseconds(100))
    #expect(server.requestCount(path: "/ok") == 0)
  }

  @Test func cancellingAnOperationNeverEnqueuedSendsNoRequest() async throws {
    defer { server.stop() }
    let operation = operation("/ok")
    operation.cancel()
    let result = await networkingResult(of: operation, on: manager)
    #expect(throws: CancellationError.self) { try result.get() }
    #expect(await eventually { manager.isIdle })
    try await Task.sleep(for: .milliseconds(100))
    #expect(server.requestCount(path: "/ok") == 0)
  }

  @Test func operationTimeoutReportsTimeoutAndCancelsTheDataTask() async throws {
    defer { server.stop() }
    // The timeout runs on a test clock: it falls due only once the request reached the server.
    let clock = TestClock()
    let manager = OperationQueueManager(name: "networking-timeout", clock: clock)
    let operation = operation("/hang")
    operation.timeout = .milliseconds(200)
    let delivered = Locked<Result<NetworkingPayload, any Error>?>(nil)
    manager.enqueue(operation) { result in delivered.withLock { $0 = result } }
    #expect(await server.waitForRequests(1, timeout: .seconds(30)))

    await clock.advance(by: .milliseconds(200))

    let result = try #require(delivered.withLock { $0 })
    #expect(throws: OperationTimeoutError.self) { try result.get() }
    #expect(await server.waitForAbandonedResponses(1, timeout: .seconds(30)))
  }

  @Test func dataTaskCancelledOutsideTheOperationIsATransportError() async throws {
    defer { server.stop() }
    // Code outside the operation cancels its data task, on a session of its own.
    let session = URLSession.makeNetworkingSession(timeout: .seconds(60))
    let operation = NetworkingOperation<NetworkingPayload>(
      request: URLRequest(url: server.url("/hang")), session: session)
    let waiter = Task { await networkingResult(of: operation, on: manager) }
    #expect(await server.waitForRequests(1, timeout: .seconds(30)))
    let dataTask = try #require(operation.runningDataTask)
    DispatchQueue.global().async { dataTask.cancel() }
    let error = try #require(await waiter.value.networkingError)
    guard case .transport(let urlError) = error else {
      Issue.record("expected transport, got \(error)")
      return
    }
    #expect(urlError.code == .cancelled)
    #expect(error.description == "transport error -999 (cancelled outside the operation)")
    #expect(!operation.isCancelled)
  }

  /// `cancel()` racing a failing connection crashes corelibs 6.3.1 with a URL cache
  /// (docs/PLATFORM-NOTES.md). With the recommended session it must neither crash nor deliver
  /// twice.
  ///
  /// Four lanes each enqueue, wait, and cancel. The wait is spread over a window that adapts to
  /// the machine: it starts at the time a refused connection takes to fail and grows after each
  /// cancellation that came first, shrinks after each failure that did, so cancellation keeps
  /// landing around the failure even on a loaded machine. At least 400 rounds run, more (up to
  /// 4,000) until each side of the race was hit 20 times.
  @Test(.timeLimit(.minutes(3)))
  func cancellationRacingAFailingConnectionNeitherCrashesNorDeliversTwice() async throws {
    server.stop()
    let closedPort = try LoopbackSocket.bound(listening: false)
    defer { closedPort.closeSocket() }
    let url = URL(string: "http://127.0.0.1:\(closedPort.port)/refused")!
    let manager = manager
    // A session of its own: thousands of data tasks created, resumed and cancelled at once keep
    // corelibs' session busy, which would hold up other tests sharing one.
    let session = URLSession.makeNetworkingSession()
    defer { session.finishTasksAndInvalidate() }
    @Sendable func makeOperation() -> NetworkingOperation<NetworkingPayload> {
      NetworkingOperation(request: URLRequest(url: url), session: session, coalescing: .never)
    }

    var failureTimes: [Duration] = []
    for _ in 0..<9 {
      let started = ContinuousClock.now
      _ = await networkingResult(of: makeOperation(), on: manager)
      failureTimes.append(ContinuousClock.now - started)
    }
    let failureMicroseconds = max(1, failureTimes.sorted()[4] / .microseconds(1))

    struct Tally {
      var nextRound = 0
      var windowMicroseconds: Double
      var deliveries: [Int: Int] = [:]
      var cancelled = 0
      var refused = 0
      var other: [String] = []
    }
    let tally = Locked(Tally(windowMicroseconds: failureMicroseconds))
    // Four lanes that block on each round's outcome: threads of their own, not dispatch's.
    let raced: Void? = await completing(within: .seconds(120)) {
      await onOwnThreads(4) { _ in
        while true {
          let next = tally.withLock { tally -> (round: Int, window: Double)? in
            let enough = tally.cancelled >= 20 && tally.refused >= 20
            guard tally.nextRound < 4_000, tally.nextRound < 400 || !enough else { return nil }
            defer { tally.nextRound += 1 }
            return (tally.nextRound, tally.windowMicroseconds)
          }
          guard let (round, window) = next else { return }
          let operation = makeOperation()
          let delivered = DispatchSemaphore(value: 0)
          manager.enqueue(operation) { result in
            tally.withLock { tally in
              tally.deliveries[round, default: 0] += 1
              if case .failure(is CancellationError) = result {
                tally.cancelled += 1
                tally.windowMicroseconds = min(tally.windowMicroseconds * 1.1, 100_000)
              } else if case .transport(let error) = result.networkingError,
                error.code == .cannotConnectToHost
              {
                tally.refused += 1
                tally.windowMicroseconds = max(tally.windowMicroseconds * 0.9, 1)
              } else {
                tally.other.append("\(result)")
              }
            }
            delivered.signal()
          }
          let delay = UInt32(Double((round &* 7_919) % 1_000) / 1_000 * window)
          if delay > 0 { usleep(delay) }
          operation.cancel()
          if delivered.wait(timeout: .now() + 30) == .timedOut {
            tally.withLock { $0.other.append("round \(round): no outcome within 30 s") }
          }
        }
      }
    }
    #expect(raced != nil, "the racing threads did not finish within 120 s")
    #expect(await eventually { manager.isIdle })
    let result = tally.withLock { $0 }
    #expect(result.other.isEmpty, "\(result.other.prefix(3))")
    #expect(result.deliveries.count == result.nextRound)
    #expect(result.deliveries.values.allSatisfy { $0 == 1 })
    #expect(result.cancelled + result.refused == result.nextRound)
    // Both sides of the race were hit, or the test no longer races anything.
    #expect(result.cancelled > 0 && result.refused > 0, "\(result.cancelled), \(result.refused)")
  }
}
