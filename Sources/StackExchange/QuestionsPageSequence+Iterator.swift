extension QuestionsPageSequence {
  /// Delivers the pages one by one; see ``QuestionsPageSequence`` for paging, backoff,
  /// cancellation and errors.
  public struct Iterator: AsyncIteratorProtocol, Sendable {
    /// Where the iterator stands.
    private enum State {
      /// No request yet; the next one is for page `number`, and `remaining` pages may follow.
      case idle(number: Int, remaining: Int)
      /// The request for page `number` is under way; `remaining` counts it.
      case requesting(number: Int, remaining: Int, request: PageRequest)
      /// The last page was delivered, or an error or cancellation ended the sequence.
      case finished
    }

    private let fetcher: PageFetcher
    private var state: State

    init(fetcher: PageFetcher, maxPages: Int) {
      self.fetcher = fetcher
      let first = fetcher.query.page ?? 1
      state = maxPages > 0 ? .idle(number: first, remaining: maxPages) : .finished
    }

    /// Returns the next page, waiting for its response (and for a backoff before it).
    ///
    /// - Returns: The page, or nil after the last one.
    /// - Throws: The error that ended the sequence (see ``QuestionsPageSequence``);
    ///   `CancellationError`, at once, when the calling task is cancelled.
    public nonisolated(nonsending) mutating func next() async throws -> FetchedQuestionsPage? {
      let number: Int
      let remaining: Int
      let request: PageRequest
      switch state {
      case .finished:
        return nil
      case .idle(let idleNumber, let idleRemaining):
        (number, remaining) = (idleNumber, idleRemaining)
        request = fetcher.request(page: number)
      case .requesting(let requestedNumber, let requestedRemaining, let pending):
        (number, remaining, request) = (requestedNumber, requestedRemaining, pending)
      }
      // Until the page arrives the sequence counts as ended, so an error or cancellation leaves
      // it ended.
      state = .finished
      guard !Task.isCancelled else {
        request.cancel()
        throw CancellationError()
      }
      let fetched = try await request.value()
      // No page follows `Int.max`, whatever `has_more` says.
      if fetched.page.hasMore && remaining > 1 && number < .max {
        state = .requesting(
          number: number + 1, remaining: remaining - 1, request: fetcher.request(page: number + 1))
      }
      return fetched
    }
  }
}
