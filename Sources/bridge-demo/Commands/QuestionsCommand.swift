import StackExchange

/// `bridge-demo questions`: prints the latest questions of a site, as text or JSON; with
/// `--pages`, page after page as they arrive.
enum QuestionsCommand {
  /// Runs the command.
  static func run(_ options: QuestionsOptions) async -> ExitCode {
    do {
      let environment = try DemoEnvironment(baseURL: options.baseURL)
      let query = QuestionsQuery(site: options.site, pageSize: options.pageSize)
      if let maxPages = options.pages {
        try await printPages(of: query, maxPages: maxPages, json: options.json, in: environment)
        return .success
      }
      let page = try await Progress.whileWaiting("GET \(environment.requestURL(query))") {
        try await environment.questions.questions(query)
      }
      if options.json {
        Console.out(try QuestionsPageJSON.text(page))
      } else {
        QuestionFormatter.lines(for: page, site: options.site).forEach(Console.out)
      }
      return .success
    } catch {
      Console.error(error)
      return .failure
    }
  }
}
