import Foundation

/// A command of `bridge-demo`, by the name typed on the command line.
enum Subcommand: String, CaseIterable, Sendable {
  case tour
  case questions
  case coalesce
  case cancel
  case progress
  case bench
  case help
}

/// What a valid command line asks for.
enum Invocation: Equatable {
  /// Print the usage of the tool (nil) or of a command.
  case help(Subcommand?)
  /// Print the tool's name and version.
  case version
  /// The offline tour: fetch, coalesce, page and cancel against the embedded server.
  case tour
  /// Print the latest questions, one page or several.
  case questions(QuestionsOptions)
  /// Many concurrent callers for one page.
  case coalesce(CoalesceOptions)
  /// Cancel a fetch mid-request.
  case cancel(CancelOptions)
  /// Two callers follow the progress of one slow request.
  case progress(ProgressOptions)
  /// Run the benchmarks.
  case bench(BenchOptions)
}

/// Options of `bridge-demo questions`.
struct QuestionsOptions: Equatable {
  /// Where to send the request; nil starts the embedded server.
  var baseURL: URL?
  /// The API site parameter.
  var site = "stackoverflow"
  /// How many questions to fetch, 1...100.
  var pageSize = 10
  /// Print one JSON object (the questions and the API's quota and backoff) instead of text.
  var json = false
  /// Follow `has_more` for up to this many pages, 1...100, printing each as it arrives; nil
  /// prints the one page without page headings.
  var pages: Int?
}

/// Options of `bridge-demo coalesce`.
struct CoalesceOptions: Equatable {
  /// Where to send the request; nil starts the embedded server.
  var baseURL: URL?
  /// How many concurrent callers ask for the page.
  var callers = 10
}

/// Options of `bridge-demo cancel`.
struct CancelOptions: Equatable {
  /// Where to send the request; nil starts the embedded server.
  var baseURL: URL?
  /// How long after the fetch starts the calling task is cancelled; nil cancels once the
  /// embedded server has the request (or after `CancelCommand.defaultDelay` with a base URL).
  var after: Duration?
  /// Whether the caller asks for the request to complete after it left (`--keep`), and a
  /// second caller then joins it.
  var keep = false
}

/// Options of `bridge-demo progress`.
struct ProgressOptions: Equatable {
  /// Where to send the request; nil starts the embedded server, which sends the page slowly.
  var baseURL: URL?
  /// Print one JSON object instead of text, and no progress bar.
  var json = false
}

/// Options of `bridge-demo bench`.
struct BenchOptions: Equatable {
  /// Print one JSON object instead of the table.
  var json = false
  /// Run each scenario at about a tenth of its scale.
  var quick = false
  /// Exit with status 1 when a scenario misses its target.
  var failOnMiss = false
}
