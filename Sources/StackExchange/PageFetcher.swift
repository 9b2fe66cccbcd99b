/// Fetches the pages of one query for a ``QuestionsPageSequence``: waits out any backoff, then
/// sends the page's request through the data manager.
struct PageFetcher: Sendable {
  /// Sends the requests and keeps the backoffs.
  let dataManager: QuestionsDataManager
  /// The query; its `page` is the first page.
  let query: QuestionsQuery

  /// Starts fetching page `number`.
  func request(page number: Int) -> PageRequest {
    PageRequest { [self] in try await fetch(page: number) }
  }

  /// Waits until the site's backoff has expired, then requests page `number`.
  ///
  /// - Throws: What ``QuestionsDataManager/questions(_:)`` throws, except ``BackoffError``:
  ///   a backoff recorded between the wait and the request is waited out as well.
  private func fetch(page number: Int) async throws -> FetchedQuestionsPage {
    var pageQuery = query
    pageQuery.page = number
    var waited = Duration.zero
    while true {
      waited += try await dataManager.backoffGate.waitUntilOpen(site: query.site)
      do {
        let page = try await dataManager.questions(pageQuery)
        return FetchedQuestionsPage(number: number, page: page, backoffWait: waited)
      } catch is BackoffError {
        continue
      }
    }
  }
}
