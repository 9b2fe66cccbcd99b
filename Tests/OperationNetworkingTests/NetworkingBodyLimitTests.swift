import FixtureServer
import Foundation
import OperationCore
import OperationNetworking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `maxResponseBytes` as a body arrives. Through a session `makeNetworkingSession` made, the
/// body comes chunk by chunk and is stopped once past the limit; through a session of the
/// caller's own, it is buffered whole and checked at its end.
@Suite struct NetworkingBodyLimitTests {
  let manager = OperationQueueManager(name: "networking-body-limit")

  /// A session without the networking delegate, as a caller might make it.
  static let plainSession: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
  }()

  private func result(
    of server: FixtureHTTPServer, session: URLSession = NetworkingFixtures.session,
    maxResponseBytes: Int
  ) async -> Result<NetworkingPayload, any Error> {
    let operation = NetworkingOperation<NetworkingPayload>(
      request: URLRequest(url: server.url("/body")), session: session,
      maxResponseBytes: maxResponseBytes)
    return await networkingResult(of: operation, on: manager)
  }

  /// Without the limit applied as the body arrives, this body never ends and the session's
  /// 60 s idle timeout never fires: the result would not come within the 30 s allowed.
  @Test func anEndlessBodyIsStoppedOncePastTheLimitAndItsConnectionClosed() async throws {
    let server = try FixtureHTTPServer { _ in
      FixtureResponse(body: Data(), fault: .endlessBody(interval: .milliseconds(1)))
    }
    let limit = 64 * 1024

    let error = try #require(await result(of: server, maxResponseBytes: limit).networkingError)

    guard case .responseTooLarge(let byteCount, limit: limit) = error else {
      Issue.record("expected responseTooLarge, got \(error)")
      return
    }
    // Stopped at the first chunk that passed the limit.
    #expect(byteCount > limit && byteCount <= limit + 1024 * 1024, "\(byteCount)")
    #expect(await server.waitForAbandonedResponses(1, timeout: .seconds(30)))
  }

  /// Stopped at its head, by the length it announced: its body would come only after two
  /// minutes, and the session's idle timeout (60 s) would end the request as timed out.
  @Test func aResponseAnnouncingMoreThanTheLimitIsStoppedAtItsHead() async throws {
    let server = try FixtureHTTPServer { _ in
      FixtureResponse(
        body: Data(repeating: 0x20, count: 2_000), fault: .stallAfterHead(pause: .seconds(120)))
    }

    let error = try #require(await result(of: server, maxResponseBytes: 1_000).networkingError)

    guard case .responseTooLarge(byteCount: 2_000, limit: 1_000) = error else {
      Issue.record("expected responseTooLarge, got \(error)")
      return
    }
    #expect(await server.waitForAbandonedResponses(1, timeout: .seconds(30)))
  }

  @Test func aBodyOfExactlyTheLimitIsAcceptedAndOneByteMoreIsNot() async throws {
    let body = NetworkingFixtures.payload
    let server = try FixtureHTTPServer { _ in FixtureResponse(body: body, fault: .closeDelimited) }

    let value = try await result(of: server, maxResponseBytes: body.count).get()
    let error = await result(of: server, maxResponseBytes: body.count - 1).networkingError

    #expect(value == NetworkingPayload(name: "swift", count: 3))
    guard case .responseTooLarge(byteCount: body.count, limit: body.count - 1)? = error else {
      Issue.record("expected responseTooLarge, got \(String(describing: error))")
      return
    }
  }

  /// A session of the caller's own still gets every answer mapped; its body is checked once it
  /// has arrived whole.
  @Test func aSessionOfTheCallersOwnChecksTheBodyAtItsEnd() async throws {
    let body = NetworkingFixtures.payload
    let server = try FixtureHTTPServer { _ in FixtureResponse(body: body, fault: .closeDelimited) }

    let value = try await result(
      of: server, session: Self.plainSession, maxResponseBytes: body.count
    ).get()
    let error = await result(
      of: server, session: Self.plainSession, maxResponseBytes: body.count - 1
    ).networkingError

    #expect(value == NetworkingPayload(name: "swift", count: 3))
    guard case .responseTooLarge(byteCount: body.count, limit: body.count - 1)? = error else {
      Issue.record("expected responseTooLarge, got \(String(describing: error))")
      return
    }
  }
}
