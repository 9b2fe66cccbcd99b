import AsyncBridge

/// Fetches the pages of one query for a ``QuestionsPageSequence``: waits out any backoff, then
/// sends the page's request through the data manager.
struct PageFetcher: Sendable {
  /// Sends the requests and keeps the backoffs.
  let dataManager: QuestionsDataManager
  /// The query; its `page` is the first page.
  let query: QuestionsQuery
  /// The longest backoff waited out; a longer one ends the pages with ``BackoffError``.
  let maxBackoffWait: Duration

  /// Starts fetching page `number`.
  func request(page number: Int) -> PageRequest {
    PageRequest { [self] in try await fetch(page: number) }
  }

  /// Waits until the site's backoff has expired, then requests page `number`: the request is
  /// admitted the moment the wait ends (see ``BackoffGate/whenOpen(site:longest:_:)``).
  ///
  /// - Throws: What ``QuestionsDataManager/questions(_:)`` throws, except that a backoff
  ///   recorded between the wait and the request is waited out as well; ``BackoffError`` when a
  ///   backoff has more than ``maxBackoffWait`` left.
  private func fetch(page number: Int) async throws -> FetchedQuestionsPage {
    let pageQuery = {
      var pageQuery = query
      pageQuery.page = number
      return pageQuery
    }()
    let priority = Task.currentPriority
    var waited = Duration.zero
    while true {
      try Task.checkCancellation()
      let opened = try await dataManager.backoffGate.whenOpen(
        site: query.site, longest: maxBackoffWait
      ) { [dataManager] () throws -> AdmittedRequest<QuestionsPage>? in
        do {
          return try dataManager.admitRequest(for: pageQuery, priority: priority)
        } catch is BackoffError {
          // Recorded since the gate opened: wait for it too.
          return nil
        }
      }
      waited += opened.waited
      guard let request = opened.request else { continue }
      let page = try await request.value()
      dataManager.backoffGate.record(backoff: page.backoff, site: query.site)
      return FetchedQuestionsPage(number: number, page: page, backoffWait: waited)
    }
  }
}
