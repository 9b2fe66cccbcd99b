import Foundation
import OperationCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Fetches one page of `/questions`: a ``NetworkingOperation`` that decodes a ``QuestionsPage``
/// and reads a failing status's body as a ``StackExchangeAPIError``.
///
/// Its coalescing key is the request URL, so while one is pending or executing, an identical
/// query on the same base URL joins it instead of sending a second request.
final class FetchQuestionsOperation: NetworkingOperation<QuestionsPage>, @unchecked Sendable {
  // Adds no state: everything mutable lives in NetworkingOperation's lock.

  /// Creates the operation for `query` against `baseURL`.
  ///
  /// - Throws: ``QueryError`` when the query or the base URL is invalid; nothing is sent.
  init(
    query: QuestionsQuery, baseURL: URL, session: URLSession, decoder: JSONDecoder
  ) throws(QueryError) {
    let url = try query.url(baseURL: baseURL)
    super.init(
      request: URLRequest(url: url), session: session, decoder: decoder,
      serverErrorType: StackExchangeAPIError.self, coalescingKey: url)
  }
}
