extension FixtureResponse {
  /// A network fault a ``FixtureHTTPServer`` simulates while sending a response.
  public enum Fault: Sendable, Equatable {
    /// No fault: the complete response, then a clean close.
    case none
    /// The head and half of the body, then a close with `SO_LINGER` 0 so the client sees a reset.
    case resetMidBody
    /// The head at once, then the body a few bytes at a time with `interval` between sends;
    /// for exceeding a client's timeout.
    case slowDrip(interval: Duration)
    /// The head at once (with the body's `Content-Length`), then the body `chunkSize` bytes at
    /// a time with `interval` between sends: a large body that arrives slowly but steadily, for
    /// showing a download's progress.
    case paced(chunkSize: Int, interval: Duration)
    /// The head at once (with the body's `Content-Length`), then nothing for `pause`, then the
    /// body: a server that announces a body and stalls before sending it.
    case stallAfterHead(pause: Duration)
    /// A `Content-Length` larger than the bytes sent (half of the body), then a clean close.
    case shortBody
    /// The body gzip-compressed and cut in half, with `Content-Length` matching the bytes sent
    /// and `Content-Encoding: gzip`, regardless of ``FixtureResponse/contentEncoding``.
    case truncatedGzip
    /// A valid gzip header followed by data that is not valid DEFLATE, with
    /// `Content-Encoding: gzip` and a matching `Content-Length`.
    case corruptGzip
    /// The request is read, then the connection closes without a response.
    case closeWithoutResponse
    /// The request is read, then the port answers in another protocol (an SSH server's
    /// greeting) and closes: what a base URL pointing at the wrong port meets.
    case notHTTP
    /// The whole body with no `Content-Length`: it ends when the connection closes (a body an
    /// HTTP/1.1 client cannot size before it has arrived).
    case closeDelimited
    /// No `Content-Length`, then the body, then spaces without end, 16 KiB every
    /// `interval`, until the client goes away (a server stuck in a loop; its response counts as
    /// abandoned).
    case endlessBody(interval: Duration)
  }
}
