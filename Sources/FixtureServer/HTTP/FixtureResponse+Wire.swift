import Foundation

extension FixtureResponse {
  /// Header fields the server writes itself; responder-supplied values are dropped.
  private static let managedHeaderNames: Set<String> = [
    "content-length", "content-encoding", "connection", "transfer-encoding",
  ]

  /// Renders the response for a request with `method`, applying content encoding and ``fault``.
  func wire(forMethod method: String) -> WireResponse {
    var encoding = contentEncoding
    var payload: Data
    switch fault {
    case .closeWithoutResponse:
      return WireResponse(head: Data(), body: Data(), dripInterval: nil, ending: .graceful)
    case .notHTTP:
      return WireResponse(
        head: Data("SSH-2.0-OpenSSH_9.2p1\r\n".utf8), body: Data(), dripInterval: nil,
        ending: .graceful)
    case .truncatedGzip:
      encoding = .gzip
      let member = Gzip.compress(body)
      payload = Data(member.prefix(member.count / 2))
    case .corruptGzip:
      encoding = .gzip
      // 0xFF starts a final block of the reserved type 3, which every inflater rejects.
      payload = Gzip.header + Data([0xFF]) + Data(repeating: 0xA5, count: max(body.count, 16))
    case .none, .resetMidBody, .slowDrip, .paced, .shortBody, .closeDelimited, .endlessBody,
      .stallAfterHead:
      payload = encoding == .gzip ? Gzip.compress(body) : body
    }
    var declaredLength = payload.count
    var ending = WireResponse.Ending.graceful
    var dripInterval: Duration?
    var dripChunk = WireResponse.dripChunkSize
    switch fault {
    case .resetMidBody:
      payload = Data(payload.prefix(payload.count / 2))
      ending = .reset
    case .shortBody:
      let sent = Data(payload.prefix(payload.count / 2))
      declaredLength = max(payload.count, sent.count + 1)
      payload = sent
    case .slowDrip(let interval), .endlessBody(let interval):
      dripInterval = interval
    case .paced(let chunkSize, let interval):
      dripInterval = interval
      dripChunk = max(1, chunkSize)
    case .none, .truncatedGzip, .corruptGzip, .closeWithoutResponse, .notHTTP, .closeDelimited,
      .stallAfterHead:
      break
    }
    let hasBody = !((100..<200).contains(status) || status == 204 || status == 304)
    let isEndless = if case .endlessBody = fault { hasBody && method != "HEAD" } else { false }
    let announcesLength = hasBody && fault != .closeDelimited && !isEndless
    let head = renderHead(
      contentLength: announcesLength ? declaredLength : nil, gzip: hasBody && encoding == .gzip)
    var wire = WireResponse(
      head: head, body: hasBody && method != "HEAD" ? payload : Data(),
      dripInterval: dripInterval, ending: ending)
    wire.dripChunk = dripChunk
    if case .stallAfterHead(let pause) = fault { wire.pauseAfterHead = pause }
    if isEndless {
      wire.endlessChunk = Data(repeating: 0x20, count: WireResponse.endlessChunkSize)
    }
    return wire
  }

  private func renderHead(contentLength: Int?, gzip: Bool) -> Data {
    var lines = ["HTTP/1.1 \(status) \(Self.reasonPhrase(for: status))"]
    for (name, value) in headers.sorted(by: { $0.key < $1.key })
    where !Self.managedHeaderNames.contains(name.lowercased()) {
      lines.append("\(name): \(value)")
    }
    if let contentLength { lines.append("Content-Length: \(contentLength)") }
    if gzip { lines.append("Content-Encoding: gzip") }
    lines.append("Connection: close")
    return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
  }

  private static func reasonPhrase(for status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 200: "OK"
    case 201: "Created"
    case 204: "No Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 304: "Not Modified"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 408: "Request Timeout"
    case 413: "Content Too Large"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    case 505: "HTTP Version Not Supported"
    default: "Status \(status)"
    }
  }
}
