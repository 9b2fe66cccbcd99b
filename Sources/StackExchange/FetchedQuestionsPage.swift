/// One page a ``QuestionsPageSequence`` delivers: the page, its number, and the backoff wait
/// that came before its request.
public struct FetchedQuestionsPage: Sendable, Equatable {
  /// The page number it was requested with (the API's 1-based `page` parameter).
  public let number: Int
  /// The page: its questions, `hasMore`, `quotaMax`, `quotaRemaining`, and `backoff` when the
  /// API asked the client to wait before calling `/questions` again (the sequence then waits
  /// that long before requesting the next page).
  public let page: QuestionsPage
  /// How long the sequence waited for a backoff before sending this page's request; zero when
  /// it did not wait.
  public let backoffWait: Duration

  /// Creates a value; normally values come from a ``QuestionsPageSequence``.
  public init(number: Int, page: QuestionsPage, backoffWait: Duration) {
    self.number = number
    self.page = page
    self.backoffWait = backoffWait
  }
}
