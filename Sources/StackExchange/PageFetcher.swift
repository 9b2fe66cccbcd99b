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

  /// Waits until the site's backoff has expired, then requests page `number`.
  ///
  /// - Throws: What ``QuestionsDataManager/questions(_:)`` throws, except that a backoff
  ///   recorded between the wait and the request is waited out as well; ``BackoffError`` when a
  ///   backoff has more than ``maxBackoffWait`` left.
  private func fetch(page number: Int) async throws -> FetchedQuestionsPage {
    var pageQuery = query
    pageQuery.page = number
    var waited = Duration.zero
    while true {
      waited += try await dataManager.backoffGate.waitUntilOpen(
        site: query.site, longest: maxBackoffWait)
      do {
        let page = try await dataManager.questions(pageQuery)
        return FetchedQuestionsPage(number: number, page: page, backoffWait: waited)
      } catch is BackoffError {
        continue
      }
    }
  }
}
