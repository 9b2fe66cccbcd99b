import Foundation

/// Reads one request (head and `Content-Length` body) from a connection, tolerating short reads.
struct RequestReader {
  /// Bounds on what a client may send.
  struct Limits {
    /// The largest accepted request head, in bytes.
    let headBytes: Int
    /// The largest accepted request body, in bytes.
    let bodyBytes: Int
    /// The time allowed for the whole request to arrive.
    let timeout: Duration
  }

  /// What reading produced.
  enum Outcome {
    /// A complete, well-formed request.
    case request(FixtureRequest)
    /// A request the server answers with an error status.
    case rejected(RequestHead.Rejection)
    /// The client closed, failed or timed out before a complete request arrived.
    case disconnected
  }

  /// The connection to read from.
  let socket: ConnectionSocket
  /// The bounds to enforce.
  let limits: Limits

  /// Reads until the request is complete, rejected or abandoned.
  func read() -> Outcome {
    let deadline = ContinuousClock.now + limits.timeout
    var buffer: [UInt8] = []
    let headEnd: Int
    while true {
      guard socket.waitReadable(until: deadline), let bytes = socket.receiveAvailable() else {
        return .disconnected
      }
      let scanStart = buffer.count
      buffer += bytes
      if let end = Self.endOfHead(in: buffer, from: scanStart), end <= limits.headBytes {
        headEnd = end
        break
      }
      if buffer.count > limits.headBytes {
        return .rejected(.init(status: 431, reason: "request head too large"))
      }
    }
    let head: RequestHead
    do {
      head = try RequestHead(parsing: Array(buffer[..<headEnd]))
    } catch {
      return .rejected(error)
    }
    guard head.contentLength <= limits.bodyBytes else {
      return .rejected(.init(status: 413, reason: "request body too large"))
    }
    var body = Array(buffer[headEnd...].prefix(head.contentLength))
    if head.expectsContinue && body.count < head.contentLength {
      guard socket.sendAll(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return .disconnected }
    }
    while body.count < head.contentLength {
      guard socket.waitReadable(until: deadline), let bytes = socket.receiveAvailable() else {
        return .disconnected
      }
      body += bytes.prefix(head.contentLength - body.count)
    }
    let headers = Dictionary(
      head.fields.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
    return .request(
      FixtureRequest(method: head.method, target: head.target, headers: headers, body: Data(body)))
  }

  /// Returns the index just past the empty line that ends the head, searching from `start`.
  /// Lines may end with CRLF or a bare LF.
  private static func endOfHead(in buffer: [UInt8], from start: Int) -> Int? {
    let newline: UInt8 = 0x0A
    let carriageReturn: UInt8 = 0x0D
    var index = start
    while index < buffer.count {
      if buffer[index] == newline {
        if index >= 1 && buffer[index - 1] == newline { return index + 1 }
        if index >= 2 && buffer[index - 1] == carriageReturn && buffer[index - 2] == newline {
          return index + 1
        }
      }
      index += 1
    }
    return nil
  }
}
