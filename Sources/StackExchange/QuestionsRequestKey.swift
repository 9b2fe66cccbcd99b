import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The coalescing key of a ``FetchQuestionsOperation``: the request URL, and everything else
/// that decides what its callers get back, so a call joins only a request it would have made
/// itself. Two data managers on one `OperationQueueManager` share requests only when they also
/// share the session, the decoder and the request timeout.
///
/// The session and decoder are told apart by identity: an operation in flight holds both, so
/// no other object takes their place while the key is in use. Its description is the URL
/// alone, as lifecycle events show it.
struct QuestionsRequestKey: Hashable, Sendable, CustomStringConvertible {
  let url: URL
  let session: ObjectIdentifier
  let decoder: ObjectIdentifier
  let timeout: Duration?

  /// The key of a request for `url` sent through `session`, decoded by `decoder` and limited
  /// to `timeout`.
  init(url: URL, session: URLSession, decoder: JSONDecoder, timeout: Duration?) {
    self.url = url
    self.session = ObjectIdentifier(session)
    self.decoder = ObjectIdentifier(decoder)
    self.timeout = timeout
  }

  var description: String { url.absoluteString }
}
