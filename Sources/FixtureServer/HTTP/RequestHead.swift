import Foundation

/// The parsed request line and header fields of an HTTP/1.x request.
struct RequestHead {
  /// Why a request head was rejected; becomes a 4xx/5xx response.
  struct Rejection: Error {
    /// The status to answer with.
    let status: Int
    /// A short explanation, sent as the plain-text body.
    let reason: String
  }

  /// The request method.
  let method: String
  /// The request target as sent.
  let target: String
  /// Header fields in arrival order, names as sent.
  let fields: [(name: String, value: String)]
  /// The declared body length (0 when absent).
  let contentLength: Int
  /// Whether the client sent `Expect: 100-continue`.
  let expectsContinue: Bool

  /// Parses the bytes before the empty line ending the head (line ends may be CRLF or LF).
  /// Bytes are read as ISO-8859-1, as RFC 9110 allows for field values.
  init(parsing bytes: [UInt8]) throws(Rejection) {
    // Split bytes, not Characters: "\r\n" is a single Character in Swift.
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
      let content = line.last == 0x0D ? line.dropLast() : line
      return String(String.UnicodeScalarView(content.map { Unicode.Scalar($0) }))
    }
    while lines.last?.isEmpty == true { lines.removeLast() }
    guard let requestLine = lines.first else {
      throw Rejection(status: 400, reason: "missing request line")
    }
    let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(Self.isTokenCharacter) else {
      throw Rejection(status: 400, reason: "malformed request line")
    }
    guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
      throw Rejection(
        status: parts[2].hasPrefix("HTTP/") ? 505 : 400, reason: "unsupported version")
    }
    let target = String(parts[1])
    guard target.hasPrefix("/") || target.hasPrefix("http://") || target == "*",
      target.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }),
      URLComponents(string: target) != nil
    else { throw Rejection(status: 400, reason: "malformed request target") }
    method = String(parts[0])
    self.target = target
    fields = try lines.dropFirst().map { line throws(Rejection) in try Self.field(in: line) }
    let lengths = Set(fields.filter { $0.name.lowercased() == "content-length" }.map(\.value))
    guard lengths.count <= 1 else { throw Rejection(status: 400, reason: "conflicting lengths") }
    if let length = lengths.first {
      guard !length.isEmpty, length.count <= 18, length.allSatisfy(\.isASCIIDigit),
        let value = Int(length)
      else { throw Rejection(status: 400, reason: "malformed Content-Length") }
      contentLength = value
    } else {
      contentLength = 0
    }
    if fields.contains(where: { $0.name.lowercased() == "transfer-encoding" }) {
      throw Rejection(status: 501, reason: "Transfer-Encoding is not supported")
    }
    if parts[2] == "HTTP/1.1" && !fields.contains(where: { $0.name.lowercased() == "host" }) {
      throw Rejection(status: 400, reason: "missing Host")
    }
    expectsContinue = fields.contains {
      $0.name.lowercased() == "expect" && $0.value.lowercased() == "100-continue"
    }
  }

  private static func field(in line: String) throws(Rejection) -> (name: String, value: String) {
    guard let colon = line.firstIndex(of: ":") else {
      throw Rejection(status: 400, reason: "header line without colon")
    }
    let name = line[..<colon]
    guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
      throw Rejection(status: 400, reason: "malformed header name")
    }
    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) else {
      throw Rejection(status: 400, reason: "control character in header value")
    }
    return (String(name), value)
  }

  private static func isTokenCharacter(_ character: Character) -> Bool {
    guard let ascii = character.asciiValue, ascii > 0x20, ascii < 0x7F else { return false }
    return !"()<>@,;:\\\"/[]?={}".contains(character)
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
