import Foundation
import OperationCore
import OperationNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Fetches one page of `/questions`: a ``NetworkingOperation`` that decodes a ``QuestionsPage``
/// and reads a failing status's body as a ``StackExchangeAPIError``. It sends one attempt; its
/// retry policy honours the API's `backoff` field, so a retry, if one is ever allowed, waits
/// as long as the API asks.
///
/// While one is pending or executing, an identical query joins it instead of sending a second
/// request: the same URL, session, decoder and time limit (its ``QuestionsRequestKey``).
final class FetchQuestionsOperation: NetworkingOperation<QuestionsPage>, @unchecked Sendable {
  // Adds no state: everything mutable lives in NetworkingOperation's lock.

  /// Creates the operation for `query` against `baseURL`, limited to `timeout` once started.
  ///
  /// - Throws: ``QueryError`` when the query or the base URL is invalid; nothing is sent.
  init(
    query: QuestionsQuery, baseURL: URL, session: URLSession, decoder: JSONDecoder,
    timeout: Duration?
  ) throws(QueryError) {
    let url = try query.url(baseURL: baseURL)
    super.init(
      request: URLRequest(url: url), session: session, decoder: decoder,
      serverErrorType: StackExchangeAPIError.self,
      retryPolicy: RetryPolicy.none.honouringStackExchangeBackoff,
      coalescingKey: QuestionsRequestKey(
        url: url, session: session, decoder: decoder, timeout: timeout))
    self.timeout = timeout
  }
}
