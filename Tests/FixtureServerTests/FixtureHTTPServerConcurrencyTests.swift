import Foundation
import TestSupport
import Testing

@testable import FixtureServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// URLSession on Linux honours httpMaximumConnectionsPerHost (default 6): with the default,
// 64 requests of 200 ms take about 2.2 s.
private let session = makeTestSession(maxConnectionsPerHost: 64)

@Suite struct FixtureHTTPServerConcurrencyTests {
  @Test func sixtyFourSlowRequestsAreServedInParallel() async throws {
    // Each response is held until the gate opens: all 64 requests can reach the server only if
    // it serves them at the same time (a serial server would hold the second one back).
    let release = Gate()
    let server = try FixtureHTTPServer { request in
      _ = release.block()
      return FixtureResponse(body: Data(request.path.utf8))
    }

    async let results = withTaskGroup(of: (Int, FetchResult).self) { group in
      for index in 0..<64 {
        group.addTask { (index, await session.fetch(server.url("/slow/\(index)"))) }
      }
      return await group.reduce(into: [Int: FetchResult]()) { $0[$1.0] = $1.1 }
    }
    let allArrived = await server.waitForRequests(64, timeout: .seconds(30))
    release.open()

    #expect(allArrived, "only \(server.requestCount) of 64 requests were in the server at once")
    let responses = await results
    #expect(responses.count == 64)
    for (index, result) in responses {
      #expect(result.status == 200)
      #expect(result.data == Data("/slow/\(index)".utf8))
    }
    #expect(server.requestCount == 64)
  }

  @Test func cancellingAURLSessionTaskIsSeenByTheServer() async throws {
    let server = try FixtureHTTPServer { _ in
      // Long enough for a loaded machine to cancel first; shorter than the 60 s request timeout.
      FixtureResponse(body: Data("too late".utf8), latency: .seconds(50))
    }
    let outcome = Recorder<FetchResult>()
    let task = session.startFetch(URLRequest(url: server.url("/slow"))) { outcome.record($0) }
    task.resume()
    #expect(await server.waitForRequests(1, timeout: .seconds(30)))

    // Called from plain async code: no lock held, not in a cancellation handler.
    task.cancel()

    #expect(await server.waitForAbandonedResponses(1, timeout: .seconds(30)))
    #expect(await outcome.wait(forCount: 1))
    #expect(outcome.values.first?.error?.code == .cancelled)
  }
}
