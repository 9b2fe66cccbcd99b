import Foundation

/// Checks and normalises a `--base-url` value, so that a URL the request could never use is a
/// usage error rather than a transport error later.
enum BaseURL {
  /// Why a value was refused: what was expected instead.
  struct Rejection: Error, Equatable {
    /// The expectation, e.g. `a port from 1 to 65535`.
    let expected: String
  }

  /// The expectation for a value that is not an http(s) URL with a host at all.
  static let generalExpectation = "an http or https URL with a host"

  /// `text` as a base URL: `http` or `https` (any case; normalised to lower case), a host that
  /// is a well-formed DNS name, IPv4 or bracketed IPv6 address, and a port from 1 to 65535 if
  /// one is given. The host is checked as it goes on the wire: an internationalised name
  /// (`bücher.example`, or `xn--bcher-kva.example` as written) in its ASCII (IDNA) form.
  ///
  /// - Throws: ``Rejection`` naming what was expected.
  static func parse(_ text: String) throws(Rejection) -> URL {
    // `host` would be the decoded Unicode name, which the check below rightly refuses.
    guard var components = URLComponents(string: text),
      let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let host = components.encodedHost, !host.isEmpty
    else { throw Rejection(expected: generalExpectation) }
    if let port = components.port, !(1...65_535).contains(port) {
      throw Rejection(expected: "a port from 1 to 65535")
    }
    guard isWellFormedHost(host) else {
      throw Rejection(expected: "a host name or IP address")
    }
    components.scheme = scheme
    guard let url = components.url else { throw Rejection(expected: generalExpectation) }
    return url
  }

  /// Whether `host` is an IPv6 literal, a dotted-quad IPv4 address, or a DNS name whose labels
  /// are 1–63 letters, digits and inner hyphens (a trailing dot allowed).
  static func isWellFormedHost(_ host: String) -> Bool {
    if host.contains(":") {
      let address = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
      return address.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
    var labels = host.split(separator: ".", omittingEmptySubsequences: false)
    if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
    guard host.count <= 253 else { return false }
    if labels.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) {
      return labels.count == 4 && labels.allSatisfy { Int($0).map { $0 <= 255 } ?? false }
    }
    return labels.allSatisfy { label in
      (1...63).contains(label.count) && label.first != "-" && label.last != "-"
        && label.allSatisfy { $0.isASCIIDigit || ($0.isASCII && $0.isLetter) || $0 == "-" }
    }
  }
}

extension Character {
  /// Whether the character is one of `0`–`9`.
  fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
