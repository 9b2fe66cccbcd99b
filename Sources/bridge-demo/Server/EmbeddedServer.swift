import FixtureServer
import Foundation

/// The offline stand-in for the StackExchange API: a `FixtureHTTPServer` on 127.0.0.1 (an
/// ephemeral port) answering `/questions` with `StackExchangeFixture`'s invented questions.
///
/// Every page 2 it serves carries a ``pageTwoBackoff``, so that a client following `has_more`
/// meets a backoff on its way, as real clients of the API do; the single-page commands ask for
/// page 1 only.
final class EmbeddedServer: Sendable {
  /// The `backoff` (seconds) on page 2: short, so the tour stays fast.
  static let pageTwoBackoff = 1

  private let fixture: StackExchangeFixture
  private let server: FixtureHTTPServer

  /// Starts the server.
  ///
  /// - Throws: `FixtureServerError` when the socket cannot be set up.
  init() throws(FixtureServerError) {
    let fixture = StackExchangeFixture(pageBackoffs: [2: Self.pageTwoBackoff])
    self.fixture = fixture
    server = try FixtureHTTPServer(responder: fixture.respond(to:))
  }

  /// `http://127.0.0.1:<port>`, the base URL to request `/questions` from.
  var baseURL: URL { server.baseURL }

  /// How long the server waits before answering; commands set it to what they show.
  var latency: Duration {
    get { fixture.latency }
    set { fixture.latency = newValue }
  }

  /// When set, every response is sent uncompressed, `chunkSize` bytes at a time with `interval`
  /// between sends: a page that takes long, whose progress a client can follow.
  var pace: (chunkSize: Int, interval: Duration)? {
    get { fixture.pace }
    set { fixture.pace = newValue }
  }

  /// The `/questions` requests received so far.
  var questionRequestCount: Int { server.requestCount(path: "/questions") }

  /// The responses a client abandoned (closed the connection before the last byte) so far.
  var abandonedResponseCount: Int { server.abandonedResponseCount }

  /// Waits until the server has received `count` `/questions` requests in all.
  ///
  /// - Returns: false if that did not happen within `timeout`.
  func waitForQuestionRequests(_ count: Int, timeout: Duration) async -> Bool {
    await server.waitForRequests(count, path: "/questions", timeout: timeout)
  }

  /// Waits until the server has seen `count` abandoned responses in all.
  ///
  /// - Returns: false if that did not happen within `timeout`.
  func waitForAbandonedResponses(_ count: Int, timeout: Duration) async -> Bool {
    await server.waitForAbandonedResponses(count, timeout: timeout)
  }
}
