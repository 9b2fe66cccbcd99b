import AsyncBridge
import StackExchange

/// `bridge-demo` without arguments: fetch, coalesce, page, adopt and cancel against the
/// embedded server.
enum TourCommand {
  /// Runs the tour.
  static func run() async -> ExitCode {
    let start = ContinuousClock.now
    guard let environment = DemoEnvironment.start(baseURL: nil) else { return .failure }
    Console.out("OperationBridge tour: real HTTP through URLSession, offline")
    Console.out("StackExchange fixture server: \(environment.baseURL)")

    section("1. Fetch: try await questions(_:) sends one request and decodes the page")
    let query = QuestionsQuery(site: "stackoverflow", pageSize: 3)
    do {
      environment.server?.latency = .zero
      Console.out("GET \(environment.requestURL(query))")
      let page = try await environment.questions.questions(query)
      QuestionFormatter.lines(for: page, site: query.site).forEach(Console.out)
    } catch {
      Console.error(error)
      return .failure
    }

    section("2. Coalesce: concurrent callers share one operation and one HTTP request")
    let coalesce = await CoalesceCommand.demonstrate(callers: 10, in: environment)
    coalesce.lines.forEach(Console.out)

    section("3. Pages: pages(_:maxPages:) follows has_more and waits out a backoff")
    do {
      try await showPages(in: environment)
    } catch {
      Console.error(error)
      return .failure
    }

    section("4. Adopt: await an Operation you already have, untouched")
    do {
      // It fetches through the data manager, so it needs a second slot beside its own: the
      // demo's manager is four wide.
      let titles = try await environment.manager.perform(coalescingKey: "tour/legacy-titles") {
        complete in
        LegacyTitlesOperation(
          questions: environment.questions, query: query, completionHandler: complete)
      }
      Console.out(
        "a legacy Operation subclass, handed the manager's completion handler: "
          + "\(titles.count) titles, first: "
          + (titles.first ?? "-"))
    } catch {
      Console.error(error)
      return .failure
    }

    section("5. Cancel: cancelling the calling task lets go of everything below it")
    let cancel = await CancelCommand.demonstrate(after: nil, in: environment)
    cancel.lines.forEach(Console.out)

    Console.out("")
    if let failure = coalesce.firstFailure {
      Console.error(failure)
      return .failure
    }
    if let problem = cancel.problem {
      Console.error("error: \(problem)")
      return .failure
    }
    let elapsed = CancelCommand.milliseconds(ContinuousClock.now - start)
    Console.out(
      "Tour done in \(elapsed). Next: bridge-demo --help, "
        + "bridge-demo questions --base-url https://api.stackexchange.com/2.3")
    return .success
  }

  /// Fetches three short pages with `pages(_:maxPages:)`, printing each heading as it arrives
  /// and the backoff the embedded server puts on page 2.
  ///
  /// - Throws: The error that ended the pages.
  private static func showPages(in environment: DemoEnvironment) async throws {
    environment.server?.latency = .zero
    let query = QuestionsQuery(site: "stackoverflow", pageSize: 3)
    let maxPages = 3
    var first = query
    first.page = 1
    Console.out(
      "GET \(environment.requestURL(first)), then the next pages while has_more, "
        + "up to page \(maxPages)")
    var last: FetchedQuestionsPage?
    try await QuestionsCommand.forEachPage(of: query, maxPages: maxPages, in: environment) {
      fetched, isLast in
      Console.out("  " + QuestionFormatter.heading(for: fetched))
      if !isLast, let backoff = QuestionFormatter.backoffLine(after: fetched) {
        Console.out("  " + backoff)
      }
      last = fetched
    }
    if let last {
      Console.out(
        last.page.hasMore
          ? "  stopped after page \(last.number), the maxPages asked for, with more available"
          : "  stopped after page \(last.number), the last one")
    }
  }

  /// Prints a section heading after a blank line.
  private static func section(_ title: String) {
    Console.out("")
    Console.out("== \(title)")
  }
}
