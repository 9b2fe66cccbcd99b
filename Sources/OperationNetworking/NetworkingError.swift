import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A decodable error body a server sends with a failing status, such as the StackExchange API's
/// `{"error_id": 400, "error_message": "…", "error_name": "bad_parameter"}`.
public typealias ServerErrorBody = Decodable & Error & Sendable

/// Why a ``NetworkingOperation`` failed at its own work.
///
/// Cancellation and timeouts are not cases of this type: a cancelled operation reports
/// `CancellationError` and one whose `ConcurrentOperation.timeout` expired reports
/// `OperationTimeoutError`. Every case has a one-line ``description`` suitable for a CLI error
/// line, such as `HTTP 404 (not found)` or `transport error -1004 (cannot connect to host)`.
public enum NetworkingError: Error, Sendable, CustomStringConvertible, LocalizedError {
  /// The exchange did not complete: no connection, a request timeout, a TLS failure, or a data
  /// task cancelled by someone other than the operation (code -999, say when the session was
  /// invalidated). Errors that are not `URLError`s arrive wrapped as `URLError.unknown` with the
  /// original under `NSUnderlyingErrorKey`.
  case transport(URLError)
  /// A 2xx response without a body to decode (a 204, or an empty 200).
  case noData(statusCode: Int)
  /// The response is not an HTTP response (nil when there was none at all).
  case nonHTTPResponse(URLResponse?)
  /// The status code is not 2xx. `serverError` is the body decoded as the operation's server
  /// error type, when one was given and the body matched it; `bodyExcerpt` is the start of the
  /// body as text, for diagnostics.
  case badStatus(statusCode: Int, serverError: (any Error & Sendable)?, bodyExcerpt: String)
  /// A 2xx body that is not the expected JSON. Errors thrown by a custom `init(from:)` that are
  /// not `DecodingError`s arrive as `dataCorrupted` with the original as the underlying error.
  case undecodable(DecodingError, bodyExcerpt: String)
  /// The response is larger than the operation accepts. `byteCount` is the length the server
  /// announced when that alone exceeds the limit, else the number of bytes received.
  case responseTooLarge(byteCount: Int, limit: Int)

  /// One line for a CLI, such as `HTTP 400: bad_parameter (400): site is required`.
  public var description: String {
    switch self {
    case .transport(let error):
      return "transport error \(error.errorCode) (\(error.summary))"
    case .noData(let statusCode):
      return "HTTP \(statusCode) with an empty body where JSON was expected"
    case .nonHTTPResponse(let response):
      guard let response else { return "no response" }
      let url = response.url?.absoluteString ?? "no URL"
      return "not an HTTP response (\(type(of: response)) for \(url))"
    case .badStatus(let statusCode, let serverError?, _):
      return "HTTP \(statusCode): \(Self.oneLine(String(describing: serverError)))"
    case .badStatus(let statusCode, nil, let bodyExcerpt):
      // Foundation calls any code it does not know a "server error", 999 included.
      let reason =
        (100...599).contains(statusCode)
        ? HTTPURLResponse.localizedString(forStatusCode: statusCode).lowercased()
        : "not an HTTP status code"
      let body = Self.oneLine(bodyExcerpt, limit: 80)
      return "HTTP \(statusCode) (\(reason))" + (body.isEmpty ? "" : ": \(body)")
    case .undecodable(let error, let bodyExcerpt):
      let body = Self.oneLine(bodyExcerpt, limit: 60)
      return "undecodable body: \(error.summary)" + (body.isEmpty ? "" : "; body: \(body)")
    case .responseTooLarge(let byteCount, let limit):
      return "response too large: \(byteCount) bytes, limit \(limit)"
    }
  }

  /// Same as ``description``, so `localizedDescription` is readable too.
  public var errorDescription: String? { description }

  /// `text` on one line with runs of whitespace collapsed, cut to `limit` characters.
  static func oneLine(_ text: String, limit: Int = .max) -> String {
    let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    guard collapsed.count > limit else { return collapsed }
    return collapsed.prefix(limit) + "…"
  }
}

extension URLError {
  /// A short lower-case explanation of the code, for one-line messages.
  var summary: String {
    switch code {
    case .cancelled: "cancelled outside the operation"
    case .timedOut: "timed out"
    case .badURL: "bad URL"
    case .unsupportedURL: "unsupported URL"
    case .cannotFindHost: "cannot find host"
    case .cannotConnectToHost: "cannot connect to host"
    case .networkConnectionLost: "network connection lost"
    case .dnsLookupFailed: "DNS lookup failed"
    case .httpTooManyRedirects: "too many redirects"
    case .notConnectedToInternet: "not connected to the internet"
    case .badServerResponse: "bad server response"
    case .cannotParseResponse: "cannot parse response"
    case .cannotDecodeContentData: "cannot decode content data"
    case .secureConnectionFailed: "secure connection failed"
    case .serverCertificateUntrusted: "server certificate untrusted"
    default:
      if let underlying = userInfo[NSUnderlyingErrorKey] {
        "\(NetworkingError.oneLine(String(describing: underlying), limit: 120))"
      } else {
        "URL error"
      }
    }
  }
}

extension DecodingError {
  /// What went wrong and where, on one line, e.g. `missing key "items" at top level`.
  var summary: String {
    switch self {
    case .typeMismatch(let type, let context):
      return "type mismatch at \(context.pathDescription): expected \(type)"
    case .valueNotFound(let type, let context):
      return "missing value at \(context.pathDescription): expected \(type)"
    case .keyNotFound(let key, let context):
      return "missing key \"\(key.stringValue)\" at \(context.pathDescription)"
    case .dataCorrupted(let context):
      // Where, unless it is the whole body (not JSON at all): a bad value deep in a page
      // (an empty URL string, say) names its field.
      var text =
        context.codingPath.isEmpty
        ? context.debugDescription : "at \(context.pathDescription): \(context.debugDescription)"
      if let underlying = context.underlyingError {
        text += " (\(underlying))"
      }
      return NetworkingError.oneLine(text, limit: 160)
    @unknown default:
      return NetworkingError.oneLine(String(describing: self), limit: 160)
    }
  }
}

extension DecodingError.Context {
  /// The coding path as `items[0].owner`, or `top level`.
  fileprivate var pathDescription: String {
    guard !codingPath.isEmpty else { return "top level" }
    var path = ""
    for key in codingPath {
      if let index = key.intValue {
        path += "[\(index)]"
      } else {
        path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
      }
    }
    return path
  }
}
