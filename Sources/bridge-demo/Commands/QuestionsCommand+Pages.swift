import StackExchange

extension QuestionsCommand {
  /// Prints up to `maxPages` pages of `query`, each as soon as it arrives: as text, a heading
  /// with its number and quota, its questions numbered on from the previous page's, and a line
  /// when its backoff delays the next request; as JSON, one object per line.
  ///
  /// - Throws: The error that ended the pages, once the pages before it were printed.
  static func printPages(
    of query: QuestionsQuery, maxPages: Int, json: Bool, in environment: DemoEnvironment
  ) async throws {
    var nextQuestion = 1
    try await forEachPage(of: query, maxPages: maxPages, in: environment) { fetched, isLast in
      if json { return Console.out(try QuestionsPageJSON.line(fetched)) }
      if nextQuestion > 1 { Console.out("") }
      Console.out(QuestionFormatter.heading(for: fetched))
      QuestionFormatter.questionLines(fetched.page.items, from: nextQuestion).forEach(Console.out)
      nextQuestion += fetched.page.items.count
      if !isLast, let backoff = QuestionFormatter.backoffLine(after: fetched) {
        Console.out("")
        Console.out(backoff)
      }
    }
  }

  /// Iterates `pages(_:maxPages:)` of `query`, handing each page to `body` as it arrives, with
  /// whether it is the last one. While the next page is awaited (its backoff wait included), a
  /// terminal shows the progress line. Stops early, cancelling the request under way, when
  /// standard output can no longer be written.
  ///
  /// - Throws: The error that ended the pages, or that `body` threw.
  static func forEachPage(
    of query: QuestionsQuery, maxPages: Int, in environment: DemoEnvironment,
    _ body: (FetchedQuestionsPage, _ isLast: Bool) throws -> Void
  ) async throws {
    var pages = environment.questions.pages(query, maxPages: maxPages).makeAsyncIterator()
    var previous: FetchedQuestionsPage?
    var delivered = 0
    while Console.isOutputIntact {
      var pageQuery = query
      pageQuery.page = previous.map { $0.number + 1 } ?? query.page ?? 1
      let request = "GET \(environment.requestURL(pageQuery))"
      let step =
        previous?.page.backoff.map { "waiting for a \($0) s backoff, then \(request)" } ?? request
      guard let fetched = try await Progress.whileWaiting(step, { try await pages.next() }) else {
        return
      }
      delivered += 1
      try body(fetched, !fetched.page.hasMore || delivered == maxPages)
      previous = fetched
    }
  }
}
