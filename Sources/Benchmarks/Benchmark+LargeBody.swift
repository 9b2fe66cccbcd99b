import AsyncBridge
import FixtureServer
import Foundation
import OperationCore
import OperationNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Benchmark {
  /// `large_body`: one JSON response of 8 MB (a tenth in quick mode) from a loopback fixture
  /// server, fetched and decoded by a `NetworkingOperation` through a manager, on a session
  /// from `URLSession.makeNetworkingSession` (whose delegate receives the body chunk by chunk
  /// to stop it at the size cap), against what a user writes without the library: a data task
  /// with a completion handler on a plain session, decoded with `JSONDecoder`, awaited through
  /// a checked continuation.
  ///
  /// One operation = one fetch and decode. It guards the delegate's cost per chunk: keeping a
  /// copy of the body while appending once made every chunk copy the whole body.
  enum LargeBody {
    /// The target: at most 1.5 times the plain data task.
    static let targetRatio = 1.5

    /// The decoded shape: a long string and a number.
    struct Payload: Decodable, Sendable {
      let name: String
      let count: Int
    }

    /// The session under test (one for the process, never invalidated).
    static let session = URLSession.makeNetworkingSession(timeout: .seconds(30))

    /// The baseline's session: ephemeral, no URL cache, no delegate.
    static let plainSession: URLSession = {
      let configuration = URLSessionConfiguration.ephemeral
      configuration.urlCache = nil
      return URLSession(configuration: configuration)
    }()

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let size = scale.count(8_000_000)
      var body = Data(#"{"name":""#.utf8)
      body.append(Data(repeating: UInt8(ascii: "a"), count: size))
      body.append(Data(#"","count":3}"#.utf8))
      let served = body
      let server = try FixtureHTTPServer { _ in FixtureResponse(body: served) }
      defer { server.stop() }
      let url = server.url("/large")
      let manager = OperationQueueManager(name: "bench.large_body")
      let samples = try await Statistics.interleave(
        "large_body", rounds: scale.rounds,
        ours: { try await ours(url: url, size: size, on: manager) },
        baseline: { try await baseline(url: url, size: size) })
      return ScenarioResult.ratio(
        "large_body", samples: samples,
        baseline: "a data task with a completion handler on a plain session, JSONDecoder",
        targetRatio: targetRatio,
        extras: [("body_bytes", .integer(served.count))],
        details: "one \(served.count)-byte body per fetch")
    }

    /// Our side: a `NetworkingOperation` awaited through the manager. Returns nanoseconds.
    static func ours(url: URL, size: Int, on manager: OperationQueueManager) async throws
      -> Double
    {
      try await Statistics.nanoseconds {
        let operation = NetworkingOperation<Payload>(
          request: URLRequest(url: url), session: session)
        try check(try await manager.perform(operation), size: size)
      }
    }

    /// The baseline: a data task with a completion handler, decoded in it. Returns nanoseconds.
    static func baseline(url: URL, size: Int) async throws -> Double {
      try await Statistics.nanoseconds {
        let payload = try await withCheckedThrowingContinuation {
          (continuation: CheckedContinuation<Payload, any Error>) in
          plainSession.dataTask(with: url) { data, _, error in
            continuation.resume(
              with: Result {
                if let error { throw error }
                return try JSONDecoder().decode(Payload.self, from: data ?? Data())
              })
          }.resume()
        }
        try check(payload, size: size)
      }
    }

    private static func check(_ payload: Payload, size: Int) throws {
      guard payload.name.utf8.count == size, payload.count == 3 else {
        throw BenchmarkError.failed("large_body: the body did not decode whole")
      }
    }
  }
}
