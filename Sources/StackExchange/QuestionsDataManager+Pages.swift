extension QuestionsDataManager {
  /// The pages of `query`, one after another, following the API's `has_more`.
  ///
  /// ```swift
  /// for try await fetched in questions.pages(QuestionsQuery(site: "stackoverflow"), maxPages: 3) {
  ///   print(fetched.number, fetched.page.items.count, fetched.page.quotaRemaining)
  /// }
  /// ```
  ///
  /// Each page is one request through this data manager's `OperationQueueManager`, coalesced
  /// with identical requests of other callers. A `backoff` in a response makes the sequence wait
  /// that many seconds before its next request (single calls fail fast with ``BackoffError``
  /// instead); the wait is reported in ``FetchedQuestionsPage/backoffWait``. A backoff longer
  /// than `maxBackoffWait` ends the sequence with ``BackoffError`` instead. The first error
  /// ends the sequence. Cancelling the iterating task, or leaving the loop, cancels the request
  /// under way. ``QuestionsPageSequence`` details all of this.
  ///
  /// - Parameters:
  ///   - query: The query; its `page` (default 1) is the first page requested.
  ///   - maxPages: The most pages to deliver; the sequence ends earlier after the page whose
  ///     `has_more` is false. Zero or less gives an empty sequence.
  ///   - maxBackoffWait: The longest backoff waited out before a request; one with more time
  ///     left ends the sequence with ``BackoffError``. Defaults to 60 seconds.
  /// - Returns: The sequence. Nothing is sent until it is iterated.
  public func pages(
    _ query: QuestionsQuery, maxPages: Int,
    maxBackoffWait: Duration = QuestionsPageSequence.defaultMaxBackoffWait
  ) -> QuestionsPageSequence {
    QuestionsPageSequence(
      dataManager: self, query: query, maxPages: maxPages, maxBackoffWait: maxBackoffWait)
  }
}
