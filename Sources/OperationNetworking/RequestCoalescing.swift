import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Which ``NetworkingOperation``s share one HTTP exchange.
///
/// Keys are namespaced by the operation's class and value type (see `CoalescingKey`), so two
/// operation types requesting the same URL never join each other. Operations that join share the
/// first one's session, decoder, size limit, server error type, retry policy (so its attempts too)
/// and `timeout`: give operations that differ in those a different class or their own key. For a
/// key of your own (to coalesce `POST`s you know are idempotent, say), use
/// ``NetworkingOperation/init(request:session:decoder:maxResponseBytes:serverErrorType:retryPolicy:coalescingKey:)``.
public enum RequestCoalescing: Sendable {
  /// The default. `GET` and `HEAD` requests join an identical one in flight: same method,
  /// absolute URL, header fields (so different credentials never share a response) and body.
  /// Other methods never coalesce: two identical `POST`s are two actions. Requests with an
  /// `httpBodyStream` never coalesce either, since their bodies cannot be compared.
  case automatic
  /// Never join other operations, even identical ones.
  case never

  /// The key to coalesce `request` under, or nil when it must not coalesce.
  func key(for request: URLRequest) -> RequestKey? {
    switch self {
    case .never:
      return nil
    case .automatic:
      let method = request.httpMethod ?? "GET"
      guard method == "GET" || method == "HEAD", request.httpBodyStream == nil,
        let url = request.url
      else { return nil }
      return RequestKey(
        method: method, url: url.absoluteString, headers: request.allHTTPHeaderFields ?? [:],
        body: request.httpBody)
    }
  }
}

/// The automatic coalescing key of a request. Its description shows only the method and URL:
/// header fields and the body may hold credentials, and keys appear in lifecycle events.
struct RequestKey: Hashable, Sendable, CustomStringConvertible {
  let method: String
  let url: String
  let headers: [String: String]
  let body: Data?

  var description: String { "\(method) \(url)" }
}
