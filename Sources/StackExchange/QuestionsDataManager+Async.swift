import AsyncBridge
import Foundation
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
  /// With `whenAbandoned: .finish`, the request completes even when every caller has left
  /// (the server-side effect or the page is wanted anyway), and a caller that asks for the
  /// same page meanwhile joins it; `.linger(_:)` keeps it for that long for such a caller.
  ///
  /// - Parameters:
  ///   - query: What to fetch.
  ///   - whenAbandoned: What happens to the request once every caller has left: cancelled
  ///     (the default), completed, or kept for a while.
  ///   - onProgress: Called with the request's progress (bytes of the page received, against
  ///     its announced length when the response is not compressed), shared with every caller
  ///     of the same request: serially, newest value first, never after this call returned, in
  ///     its own isolation (a closure written in main-actor code runs on the main actor).
  ///     Nil (the default) observes nothing.
  /// - Returns: The page.
  /// - Throws: ``QueryError`` or ``BackoffError`` without sending anything; `NetworkingError`
  ///   when the exchange fails (an API error body arrives as `badStatus` carrying a
  ///   ``StackExchangeAPIError``); `OperationTimeoutError` past the request timeout;
  ///   `CancellationError` when cancelled.
  public nonisolated(nonsending) func questions(
    _ query: QuestionsQuery, whenAbandoned: AbandonmentPolicy = .cancel,
    @_inheritActorContext onProgress: (@isolated(any) @Sendable (OperationProgress) -> Void)? = nil
  ) async throws -> QuestionsPage {
    try Task.checkCancellation()
    let operation = try makeOperation(for: query)
    let page =
      if let onProgress {
        try await manager.perform(
          operation, whenAbandoned: whenAbandoned, onProgress: onProgress)
      } else {
        try await manager.perform(operation, whenAbandoned: whenAbandoned)
      }
    backoffGate.record(backoff: page.backoff, site: query.site)
    return page
  }

  /// Admits the request for `query` now, for a task of priority `priority` to await later, as
  /// ``questions(_:)`` would have; the page's `backoff` is not recorded here.
  ///
  /// - Throws: ``QueryError`` or ``BackoffError`` without sending anything.
  func admitRequest(
    for query: QuestionsQuery, priority: TaskPriority
  ) throws -> AdmittedRequest<QuestionsPage> {
    manager.admit(try makeOperation(for: query), priority: Operation.QueuePriority(priority))
  }
}
