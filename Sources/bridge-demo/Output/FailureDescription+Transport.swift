import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension FailureDescription {
  /// A sentence for an exchange that did not complete, ending with its code, e.g.
  /// `the connection closed before the whole response arrived (URLError -1005)`. A timeout
  /// reads as ``timedOut(after:)`` with `idleTimeout`.
  static func transport(_ error: URLError, idleTimeout: Duration) -> String {
    let sentence: String
    switch error.code {
    case .timedOut: return timedOut(after: idleTimeout)
    case .cancelled: sentence = "the request was cancelled by something other than the command"
    case .badURL:
      // swift-corelibs-foundation's URLSession (6.3) refuses a bracketed IPv6 address that
      // libcurl itself accepts (swift-corelibs-foundation issue 5496): say so, and what works.
      sentence =
        error.failingURL?.host?.contains(":") == true
        ? "this platform's URLSession does not accept an IPv6 address as the host; "
          + "use a host name (such as localhost) instead"
        : "the request URL is not valid"
    case .unsupportedURL:
      // The commands send http and https only: on corelibs this is libcurl refusing an answer
      // that is not HTTP (a port that speaks another protocol), or a redirect to a scheme it
      // does not speak (its message then names the protocol, and the failing URL is the
      // redirect's target).
      if let message = curlMessage(of: error),
        message.lowercased().contains("not supported or disabled")
      {
        sentence = "the server redirected to a URL whose scheme is not supported: \(message)"
      } else if !isHTTP(error.failingURL) {
        sentence = "the request URL's scheme is not supported"
      } else {
        sentence = "the server's answer is not HTTP"
      }
    case .cannotFindHost, .dnsLookupFailed:
      sentence = "cannot find the host \(error.failingURL?.host ?? "of the request")"
    case .cannotConnectToHost: sentence = "could not connect to \(server(of: error))"
    case .networkConnectionLost:
      sentence = "the connection closed before the whole response arrived"
    case .notConnectedToInternet: sentence = "there is no network connection"
    case .httpTooManyRedirects: sentence = "the server redirected too many times"
    case .badServerResponse: sentence = "the server closed the connection without a response"
    case .cannotParseResponse: sentence = "the server's response is not valid HTTP"
    case .cannotDecodeRawData, .cannotDecodeContentData:
      sentence = "the response body could not be decompressed"
    case .secureConnectionFailed: sentence = "the TLS handshake failed"
    case .serverCertificateHasBadDate, .serverCertificateUntrusted,
      .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid:
      sentence = "the server's TLS certificate is not trusted"
    case .dataLengthExceedsMaximum: sentence = "the response is larger than allowed"
    default: sentence = unclassified(error)
    }
    return "\(sentence) (URLError \(error.errorCode))"
  }

  /// Whether `url` is http or https.
  private static func isHTTP(_ url: URL?) -> Bool {
    ["http", "https"].contains(url?.scheme?.lowercased() ?? "")
  }

  /// `127.0.0.1:8080`, from the failing URL.
  private static func server(of error: URLError) -> String {
    guard let url = error.failingURL, let host = url.host else { return "the server" }
    let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    return "\(host):\(port)"
  }

  /// A sentence for a code URLSession does not classify (on corelibs, -1 with libcurl's
  /// message as the underlying error): a short body, a body that does not decompress, an
  /// oversized header and a failed TLS handshake are recognised by that message; anything else
  /// quotes it.
  private static func unclassified(_ error: URLError) -> String {
    guard let message = curlMessage(of: error) else { return "the request failed" }
    let lowercased = message.lowercased()
    if lowercased.contains("transfer closed with"), lowercased.contains("bytes remaining") {
      let words = lowercased.split(separator: " ")
      let missing = words.firstIndex(of: "with").flatMap { index in
        words.indices.contains(index + 1) ? Int(words[index + 1]) : nil
      }
      return "the connection closed before the whole body arrived"
        + (missing.map { ", \($0) bytes short of its Content-Length" } ?? "")
    }
    if lowercased.contains("unencoding") || lowercased.contains("decompress") {
      return "the response body could not be decompressed"
    }
    if lowercased.contains("wrong version number")
      || lowercased.contains("packet length too long")
    {
      return "the TLS handshake failed; is the server speaking plain HTTP?"
    }
    if lowercased == "out of memory" {
      // libcurl 7.x gives this code, CURLE_OUT_OF_MEMORY, for a header line over its 100 KB
      // limit too: far more likely from a server than a process out of memory.
      return "the response could not be read: libcurl reported \"Out of memory\", as it does "
        + "for a response header over 100 KB"
    }
    if lowercased == "failed writing header" {
      // corelibs' URLSession refuses, through libcurl's header callback, a header line it does
      // not parse (seen: bytes that are not UTF-8, a status line without a reason phrase, lines
      // ending in a bare LF, an `HTTP/2` status line), though curl itself reads them.
      return "the response's header could not be read: libcurl reported \"Failed writing "
        + "header\", as it does when this platform's URLSession cannot parse a header line"
    }
    if lowercased == "failed writing received data to disk/application" {
      // Seen for a gzip body followed by more bytes (trailing garbage, a second member).
      return "the response body could not be read: libcurl reported \"Failed writing received "
        + "data to disk/application\", as it does for a compressed body with data after its end"
    }
    if lowercased.contains("ssl") || lowercased.contains("tls") {
      return "the TLS handshake failed: \(message)"
    }
    return "the request failed: \(message)"
  }

  /// The message of the error underlying `error`, on one line, if it has one.
  private static func curlMessage(of error: URLError) -> String? {
    guard let underlying = error.userInfo[NSUnderlyingErrorKey] as? any Error,
      let message = (underlying as NSError).userInfo[NSLocalizedDescriptionKey] as? String
    else { return nil }
    let line = message.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    return line.isEmpty ? nil : String(line.prefix(200))
  }
}
