import AsyncBridge
import FixtureServer
import Foundation
import OperationCore
import OperationNetworking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A networking operation reports the bytes of its body received against the announced length,
/// and every coalesced caller sees them: the last value before the outcome is the whole body.
@Suite struct NetworkingProgressTests {
  let manager = OperationQueueManager(name: "networking-progress")

  /// A JSON body of about `size` bytes that decodes as ``NetworkingPayload``.
  private static func body(size: Int) -> Data {
    Data(#"{"name":"large","count":1,"padding":""#.utf8)
      + Data(repeating: UInt8(ascii: "x"), count: size) + Data(#""}"#.utf8)
  }

  @Test func coalescedCallersSeeTheBytesOfOneBodyArrive() async throws {
    let body = Self.body(size: 24 * 1024)
    let server = try FixtureHTTPServer { _ in
      FixtureResponse(
        headers: ["Content-Type": "application/json"], body: body,
        fault: .paced(chunkSize: 2 * 1024, interval: .milliseconds(2)))
    }
    let request = URLRequest(url: server.url("/large"))
    let awaiting = Recorder<OperationProgress>()
    let handling = Recorder<OperationProgress>()
    let handled = Recorder<NetworkingPayload?>()
    manager.isSuspended = true
    let call = Task {
      try await manager.perform(
        NetworkingOperation<NetworkingPayload>(
          request: request, session: NetworkingFixtures.session),
        onProgress: awaiting.record)
    }
    #expect(await eventually { manager.outstandingOperationCount == 1 })
    manager.enqueue(
      NetworkingOperation<NetworkingPayload>(request: request, session: NetworkingFixtures.session),
      onProgress: handling.record
    ) { handled.record(try? $0.get()) }
    manager.isSuspended = false

    let payload = try #require(await result(of: call, within: .testTimeout)).get()
    #expect(payload == NetworkingPayload(name: "large", count: 1))
    #expect(await handled.wait(forCount: 1))
    #expect(handled.values == [payload])
    #expect(server.requestCount == 1)
    let total = Int64(body.count)
    for seen in [awaiting.values, handling.values] {
      #expect(seen.last == OperationProgress(completed: total, total: total))
      #expect(seen.allSatisfy { $0.totalUnitCount == total })
      let counts = seen.map(\.completedUnitCount)
      #expect(counts == counts.sorted() && Set(counts).count == counts.count)
    }
  }

  @Test func aCompressedBodyHasNoKnownTotal() async throws {
    let body = Self.body(size: 8 * 1024)
    let server = try FixtureHTTPServer { _ in
      FixtureResponse(
        headers: ["Content-Type": "application/json"], body: body, contentEncoding: .gzip)
    }
    let seen = Recorder<OperationProgress>()
    _ = try await manager.perform(
      NetworkingOperation<NetworkingPayload>(
        request: URLRequest(url: server.url("/gzip")), session: NetworkingFixtures.session),
      onProgress: seen.record)
    #expect(seen.values.last == OperationProgress(completed: Int64(body.count), total: nil))
  }
}
