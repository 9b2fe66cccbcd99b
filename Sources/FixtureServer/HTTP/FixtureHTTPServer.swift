import Foundation

/// A small HTTP/1.1 server on 127.0.0.1 for demos and network tests.
///
/// The server listens on an ephemeral port as soon as it is created and serves every connection
/// on its own thread, so slow responses never starve each other. Each connection carries one
/// request; every response ends with `Connection: close`. Malformed requests get a 4xx answer,
/// and a client that goes away never crashes the process (`MSG_NOSIGNAL`/`SO_NOSIGPIPE`).
///
/// ```swift
/// let server = try FixtureHTTPServer { request in .text("hello \(request.path)") }
/// let url = server.url("/greeting?lang=en")
/// ```
public final class FixtureHTTPServer: Sendable {
  /// The TCP port the server listens on.
  public let port: Int
  /// `http://127.0.0.1:<port>`.
  public let baseURL: URL
  private let core: ServerCore

  /// Starts listening and serving.
  /// - Parameters:
  ///   - onAbandonedResponse: Called on the connection's thread, without any lock held, each
  ///     time ``abandonedResponseCount`` grows, with the request whose response was abandoned.
  ///   - responder: Called on the connection's thread for each well-formed request.
  /// - Throws: ``FixtureServerError`` when the socket cannot be set up.
  public init(
    onAbandonedResponse: (@Sendable (FixtureRequest) -> Void)? = nil,
    responder: @escaping @Sendable (FixtureRequest) -> FixtureResponse
  ) throws(FixtureServerError) {
    core = try ServerCore(onAbandonedResponse: onAbandonedResponse, responder: responder)
    port = core.listener.port
    baseURL = URL(string: "http://127.0.0.1:\(core.listener.port)")!
    core.startAcceptLoop()
  }

  deinit {
    core.stop()
  }

  /// Returns the URL for `pathAndQuery` on this server, for example `url("/questions?page=2")`.
  /// - Precondition: `pathAndQuery` starts with `/` and forms a valid URL.
  public func url(_ pathAndQuery: String) -> URL {
    guard pathAndQuery.hasPrefix("/"), let url = URL(string: baseURL.absoluteString + pathAndQuery)
    else { preconditionFailure("not a valid path and query: \(pathAndQuery)") }
    return url
  }

  /// Stops accepting connections, shuts down the ones in progress and waits for the accept loop
  /// to end. Idempotent; also called on deinit.
  public func stop() {
    core.stop()
  }

  /// The number of well-formed requests received so far (rejected requests are not counted).
  public var requestCount: Int {
    core.state.withLock { $0.requestCount }
  }

  /// The number of well-formed requests received so far for `path` (without the query).
  public func requestCount(path: String) -> Int {
    core.state.withLock { $0.requestCountByPath[path, default: 0] }
  }

  /// The number of responses the client did not wait for: it closed or reset the connection
  /// during the latency wait or before the last byte was sent. Deliberate faults and
  /// connections shut down by ``stop()`` are not counted.
  public var abandonedResponseCount: Int {
    core.state.withLock { $0.abandonedResponseCount }
  }
}
