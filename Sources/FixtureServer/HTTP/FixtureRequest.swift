import Foundation

/// One HTTP request as received by a ``FixtureHTTPServer``.
public struct FixtureRequest: Sendable, Equatable {
  /// The request method, for example `GET`.
  public let method: String
  /// The request target exactly as sent, for example `/2.3/questions?site=stackoverflow`.
  public let target: String
  /// The percent-decoded path without the query, for example `/2.3/questions`.
  public let path: String
  /// The percent-decoded query items; the first occurrence of a repeated name wins.
  public let query: [String: String]
  /// The header fields keyed by lower-cased name; repeated fields are joined with `", "`.
  /// Use ``header(_:)`` for a case-insensitive lookup.
  public let headers: [String: String]
  /// The request body (empty when the request had none).
  public let body: Data

  /// Creates a request, deriving ``path`` and ``query`` from `target`.
  ///
  /// Useful to call a responder directly in unit tests.
  public init(
    method: String = "GET", target: String, headers: [String: String] = [:], body: Data = Data()
  ) {
    self.method = method
    self.target = target
    self.headers = Dictionary(
      headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
    self.body = body
    if let components = URLComponents(string: target) {
      path = components.path.isEmpty ? "/" : components.path
      query = Dictionary(
        (components.queryItems ?? []).map { ($0.name, $0.value ?? "") },
        uniquingKeysWith: { first, _ in first })
    } else {
      path = String(target.prefix { $0 != "?" })
      query = [:]
    }
  }

  /// Returns the value of the header field `name`, compared case-insensitively.
  public func header(_ name: String) -> String? {
    headers[name.lowercased()]
  }
}
