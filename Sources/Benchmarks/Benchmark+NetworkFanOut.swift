import AsyncBridge
import Dispatch
import FixtureServer
import Foundation
import OperationCore
import OperationNetworking
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Benchmark {
  /// `network_fanout`: 64 concurrent, distinct requests (`/questions?site=stackoverflow&page=N`)
  /// through a manager 64 wide to a fixture server that answers each after 200 ms, over real HTTP
  /// with one session from `URLSession.makeNetworkingSession` (64 connections per host). `ratio` is
  /// the wall time of the whole fan-out divided by the 200 ms a perfectly parallel client needs;
  /// `ns_per_op` is that wall time.
  enum NetworkFanOut {
    /// The target: the fan-out takes at most 1.5 times the server's latency.
    static let targetRatio = 1.5
    /// The server's latency, which a perfectly parallel fan-out takes in total.
    static let latency = Duration.milliseconds(200)

    /// One session for the whole process (invalidating sessions has teardown crashes on
    /// Linux), made as the documentation recommends, with room for 64 connections to the host.
    static let session = URLSession.makeNetworkingSession(
      timeout: .seconds(30), maximumConnectionsPerHost: 64)

    /// Measures the scenario against `baseURL`, or against an embedded fixture server when nil.
    static func run(scale: Scale, baseURL: URL?) async throws -> ScenarioResult {
      let requests = scale.quick ? 8 : 64
      let server: FixtureHTTPServer?
      if baseURL == nil {
        let fixture = StackExchangeFixture(latency: latency, quotaMax: 1_000_000)
        server = try FixtureHTTPServer(responder: fixture.respond(to:))
      } else {
        server = nil
      }
      defer { server?.stop() }
      guard let base = baseURL ?? server?.baseURL else {
        throw BenchmarkError.failed("network_fanout: no server")
      }
      let urls = (1...requests).map { page in
        base.appendingPathComponent("questions")
          .appending(queryItems: [
            URLQueryItem(name: "site", value: "stackoverflow"),
            URLQueryItem(name: "page", value: String(page)),
          ])
      }
      let manager = OperationQueueManager(
        name: "bench.network_fanout", maxConcurrentOperationCount: max(64, requests))

      var walls: [Double] = []
      for round in 0...scale.rounds {
        let wall = try await Statistics.nanoseconds {
          try await withThrowingTaskGroup(of: Int.self) { group in
            for url in urls {
              group.addTask {
                try await manager.perform(FetchOperation(session: session, url: url))
              }
            }
            for try await bytes in group where bytes == 0 {
              throw BenchmarkError.failed("network_fanout: empty response")
            }
          }
        }
        try await manager.waitUntilIdle()
        let label = round == 0 ? "warm-up" : "round \(round)/\(scale.rounds)"
        log("  network_fanout \(label): \(requests) requests in \(Report.duration(wall))")
        if round > 0 { walls.append(wall) }
      }
      let wall = Statistics.median(walls)
      let ideal = Statistics.nanoseconds(of: latency)
      let ratio = wall / ideal
      var extras: [(key: String, value: JSONValue)] = [
        ("requests", .integer(requests)),
        ("latency_ms", .number(ideal / 1e6)),
        ("wall_ms", .number(wall / 1e6)),
      ]
      if let server { extras.append(("requests_served", .integer(server.requestCount))) }
      return ScenarioResult(
        name: "network_fanout",
        nsPerOp: wall,
        baseline: "ideal: one server latency for the whole fan-out",
        baselineNsPerOp: ideal,
        ratio: ratio,
        target: "ratio <= \(targetRatio)",
        met: ratio <= targetRatio,
        extras: extras,
        details: String(format: "%d requests, wall %.1f ms", requests, wall / 1e6))
    }
  }

  /// Fetches one URL with a data task and completion handler, and finishes with the body's
  /// size; cancelling it cancels the data task.
  final class FetchOperation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
    // Mutable state lives in `task`, guarded by its lock; `session` and `url` are immutable.
    /// Where the data task stands.
    private enum TaskState {
      case idle
      case running(URLSessionDataTask)
      case cancelled
    }

    private let session: URLSession
    private let url: URL
    private let task = Mutex(TaskState.idle)

    /// Creates an operation for `url`, coalesced with other fetches of the same URL.
    init(session: URLSession, url: URL) {
      self.session = session
      self.url = url
      super.init(coalescingKey: url)
    }

    /// Starts the data task.
    override func main() {
      let dataTask = session.dataTask(with: url) { [self] data, response, error in
        if let error {
          finish(throwing: error)
        } else if let status = (response as? HTTPURLResponse)?.statusCode, status != 200 {
          finish(throwing: BenchmarkError.failed("HTTP status \(status) for \(url)"))
        } else {
          finish(returning: data?.count ?? 0)
        }
      }
      let started = task.withLock { state in
        guard case .idle = state else { return false }
        state = .running(dataTask)
        return true
      }
      if started { dataTask.resume() }
    }

    /// Cancels the data task, off the cancelling thread: on Linux `URLSessionTask.cancel()`
    /// waits for a process-wide queue.
    override func operationWasCancelled() {
      let running = task.withLock { state -> URLSessionDataTask? in
        defer { state = .cancelled }
        if case .running(let dataTask) = state { return dataTask }
        return nil
      }
      if let running { DispatchQueue.global().async { running.cancel() } }
    }
  }
}
