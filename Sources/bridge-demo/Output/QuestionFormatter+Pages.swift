import StackExchange

extension QuestionFormatter {
  /// The heading of a page `questions --pages` prints as it arrives; a page whose request
  /// waited for a backoff says how long:
  ///
  /// ```
  /// page 2: 10 questions (more available; quota 298 of 300 left; backoff 1 s)
  /// page 3: 10 questions, after a 1.0 s backoff wait (quota 297 of 300 left)
  /// ```
  static func heading(for fetched: FetchedQuestionsPage) -> String {
    let wait =
      fetched.backoffWait > .zero
      ? ", after a \(FailureDescription.duration(fetched.backoffWait)) backoff wait" : ""
    return
      "page \(fetched.number): \(count(fetched.page.items.count, "question"))\(wait) "
      + "(\(status(of: fetched.page)))"
  }

  /// The line that says the next request waits for the backoff `fetched` announced, or nil
  /// when it announced none (or zero or less, which asks for no wait), or one too long to wait
  /// out (the pages then end with the ``BackoffError`` that says so): `backoff: waiting 1 s
  /// before requesting page 3, as page 2 asked`.
  static func backoffLine(after fetched: FetchedQuestionsPage) -> String? {
    guard let seconds = fetched.page.backoff, seconds > 0,
      Duration.seconds(seconds) <= QuestionsPageSequence.defaultMaxBackoffWait
    else { return nil }
    return "backoff: waiting \(seconds) s before requesting page \(fetched.number + 1), "
      + "as page \(fetched.number) asked"
  }
}
