import AsyncBridge
import OperationCore
import OperationNetworking

extension QuestionsDataManager {
  /// Fetches one page of questions.
  ///
  /// Joins an identical request in flight (from async or completion-handler callers) instead of
  /// sending another one.
  ///
  /// Cancelling the calling task resumes this call at once with `CancellationError`. The
  /// request itself is cancelled, and its connection closed, only when no other caller still
  /// waits for it. A task that is already cancelled gets `CancellationError` without any
  /// request being sent.
  ///
  /// - Parameter query: What to fetch.
  /// - Returns: The page.
  /// - Throws: ``QueryError`` or ``BackoffError`` without sending anything; `NetworkingError`
  ///   when the exchange fails (an API error body arrives as `badStatus` carrying a
  ///   ``StackExchangeAPIError``); `OperationTimeoutError` past the request timeout;
  ///   `CancellationError` when cancelled.
  public func questions(_ query: QuestionsQuery) async throws -> QuestionsPage {
    try Task.checkCancellation()
    let page = try await manager.perform(makeOperation(for: query))
    backoffGate.record(backoff: page.backoff, site: query.site)
    return page
  }

  /// Admits the request for `query` now, for the calling task (of priority `priority`) to
  /// await later, as ``questions(_:)`` would have; the page's `backoff` is not recorded here.
  ///
  /// - Throws: ``QueryError`` or ``BackoffError`` without sending anything.
  func admitRequest(
    for query: QuestionsQuery, priority: TaskPriority
  ) throws -> AdmittedRequest<QuestionsPage> {
    manager.admitRequest(try makeOperation(for: query), priority: priority)
  }
}
