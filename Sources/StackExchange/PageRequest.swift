/// The request for one page of a ``QuestionsPageSequence``, running in its own task so that
/// it can start before the consumer asks for the page.
///
/// Cancelled when the last reference to it goes away, so an iterator that is dropped (a loop
/// left early) cancels the request it had started.
final class PageRequest: Sendable {
  private let task: Task<FetchedQuestionsPage, any Error>

  /// Starts `fetch` in a new task.
  init(_ fetch: @escaping @Sendable () async throws -> FetchedQuestionsPage) {
    task = Task(operation: fetch)
  }

  deinit {
    task.cancel()
  }

  /// Waits for the page; cancelling the calling task cancels the request and ends the wait
  /// with `CancellationError` as soon as the request has stopped.
  nonisolated(nonsending) func value() async throws -> FetchedQuestionsPage {
    try await withTaskCancellationHandler {
      try await task.value
    } onCancel: {
      task.cancel()
    }
  }

  /// Cancels the request.
  func cancel() {
    task.cancel()
  }
}
