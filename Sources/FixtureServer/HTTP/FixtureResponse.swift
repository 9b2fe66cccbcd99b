import Foundation

/// What a ``FixtureHTTPServer`` sends back for one request, including optional latency and a
/// network fault to simulate.
///
/// The server manages `Content-Length`, `Content-Encoding`, `Connection` and `Transfer-Encoding`
/// itself; such entries in ``headers`` are ignored. Every response is sent with
/// `Connection: close`.
public struct FixtureResponse: Sendable, Equatable {
  /// How the body is encoded on the wire.
  public enum ContentEncoding: Sendable, Equatable {
    /// The body is sent as is.
    case identity
    /// The body is sent as a gzip member with `Content-Encoding: gzip`.
    case gzip
  }

  /// The HTTP status code.
  public var status: Int
  /// Extra header fields, for example `Content-Type`.
  public var headers: [String: String]
  /// The body before content encoding.
  public var body: Data
  /// How ``body`` is encoded on the wire.
  public var contentEncoding: ContentEncoding
  /// How long the server waits before sending the status line. The server notices a client that
  /// closes the connection during this wait.
  public var latency: Duration
  /// The network fault to simulate; ``Fault/none`` for a well-formed response.
  public var fault: Fault

  /// Creates a response.
  public init(
    status: Int = 200,
    headers: [String: String] = [:],
    body: Data = Data(),
    contentEncoding: ContentEncoding = .identity,
    latency: Duration = .zero,
    fault: Fault = .none
  ) {
    self.status = status
    self.headers = headers
    self.body = body
    self.contentEncoding = contentEncoding
    self.latency = latency
    self.fault = fault
  }
}
