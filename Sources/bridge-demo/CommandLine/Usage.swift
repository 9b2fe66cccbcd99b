import FixtureServer

/// The `--help` pages and the usage lines of usage errors.
enum Usage {
  /// The help for `command`, or for the tool when nil, laid out for `width` columns.
  static func text(for command: Subcommand?, width: Int = Terminal.defaultWidth) -> String {
    page(for: command).text(width: width)
  }

  /// The usage line of `command` (the tool's when nil), as a usage error shows it:
  /// `usage: bridge-demo questions [--base-url <url>] …`, wrapped for `width` columns.
  static func usageLines(
    for command: Subcommand?, width: Int
  ) -> [String] {
    page(for: command).usageLines(prefix: "usage: ", width: width)
  }

  private static func page(for command: Subcommand?) -> HelpPage {
    switch command {
    case nil, .help?: tool
    case .tour?: tour
    case .questions?: questions
    case .coalesce?: coalesce
    case .cancel?: cancel
    case .progress?: progress
    case .bench?: bench
    }
  }

  private static let helpOption = (term: "-h, --help", text: "Show this help")
  private static let baseURLDescription =
    "The API root, http or https (default: the embedded fixture server)"

  private static let tool = HelpPage(
    overview: """
      A StackExchange "latest questions" feature on OperationBridge: an \
      Operation/OperationQueue core used with try await and completion handlers, over real HTTP.
      """,
    usage: ["[<command>]", "[<options>]"],
    blocks: [
      .paragraph(
        "With no command, runs the offline tour against an embedded StackExchange fixture "
          + "server on 127.0.0.1."),
      .list(
        "COMMANDS",
        [
          (
            "tour",
            "Fetch, coalesce, page, adopt and cancel against the embedded server (the default)"
          ),
          ("questions", "Print the latest questions of a site, one page or several"),
          ("coalesce", "Many concurrent callers ask for one page: count the HTTP requests"),
          ("cancel", "Cancel a fetch mid-request and show what happens to it"),
          ("progress", "Two callers follow the progress of one slow request"),
          ("bench", "Run the benchmarks"),
          ("help", "Show the help of a command"),
        ]),
      .list(
        "OPTIONS",
        [
          ("-h, --help", "Show this help; before a command, show that command's help"),
          ("--version", "Print the version"),
          ("--", "End the options: later arguments are never read as options"),
        ]),
      .paragraph(
        "Requests go to <base-url>/questions?site=<site>&..., where <base-url> is the embedded "
          + "server unless --base-url gives one (e.g. https://api.stackexchange.com/2.3)."),
      .labelled(
        "EXIT STATUS",
        "0 success; 1 a request failed or the output could not be written; 64 usage error."),
      .paragraph("See 'bridge-demo <command> --help' for a command's options."),
    ])

  private static let tour = HelpPage(
    overview: """
      The offline tour: fetch a page, let concurrent callers share one request, follow \
      has_more through three pages with a backoff, await a legacy Operation subclass as it \
      is, cancel a request mid-flight; all over HTTP against an embedded fixture server on \
      127.0.0.1.
      """,
    usage: ["[tour]"],
    blocks: [.list("OPTIONS", [helpOption])])

  private static let questions = HelpPage(
    overview:
      "Print the latest questions of a StackExchange site: title, score, answers, tags and "
      + "link, under a heading with the API's quota and, when it sent one, its backoff. With "
      + "--pages, follow has_more and print page after page as each arrives.",
    usage: [
      "questions", "[--base-url <url>]", "[--site <name>]", "[--pagesize <n>]", "[--pages <n>]",
      "[--json]",
    ],
    blocks: [
      .list(
        "OPTIONS",
        [
          ("--base-url <url>", baseURLDescription + ", e.g. https://api.stackexchange.com/2.3"),
          ("--site <name>", "The API site parameter (default: stackoverflow)"),
          ("--pagesize <n>", "How many questions per page, 1 to 100 (default: 10)"),
          (
            "--pages <n>",
            "Fetch up to n pages, 1 to 100, one after another while the API says has_more, and "
              + "print each as it arrives under \"page N:\" with its quota. When a page carries "
              + "a backoff, a line says so and the next request waits that many seconds; a "
              + "backoff over 60 s stops the pages with an error instead "
              + "(default: one page, without page headings)"
          ),
          (
            "--json",
            "Print one JSON object instead of text, shaped like the API's response: "
              + "\"items\" (the questions), \"has_more\", \"quota_max\", \"quota_remaining\" "
              + "and, when the API sent one, \"backoff\" (the seconds to wait before the next "
              + "call). With --pages, one such object per line and page, with its \"page\" number"
          ),
          helpOption,
        ]),
      .paragraph(
        "The embedded server has \(StackExchangeFixture.questionCount) questions per site and "
          + "puts a \(EmbeddedServer.pageTwoBackoff) s backoff on every page 2, so "
          + "'questions --pages 3' shows the wait."),
      .labelled(
        "EXIT STATUS",
        "0 the pages were printed; 1 a request failed (after the pages that arrived before it); "
          + "64 usage error."),
    ])

  private static let coalesce = HelpPage(
    overview: """
      Start concurrent callers for the same page, half with try await, half with completion \
      handlers, and report how many HTTP requests they caused.
      """,
    usage: ["coalesce", "[--base-url <url>]", "[--callers <n>]"],
    blocks: [
      .list(
        "OPTIONS",
        [
          ("--base-url <url>", baseURLDescription + ", which also counts the requests it receives"),
          ("--callers <n>", "How many callers, 1 to 1000 (default: 10)"),
          helpOption,
        ])
    ])

  private static let cancel = HelpPage(
    overview: """
      Start a fetch, cancel the calling task, and show that the caller got CancellationError, \
      the operation was cancelled, the HTTP request was abandoned and the queue drained. With \
      --keep, the caller asks for the request to complete after it leaves: the request \
      completes, and a second caller a moment later gets the same page from it, without a \
      second request.
      """,
    usage: ["cancel", "[--base-url <url>]", "[--after <ms>]", "[--keep]"],
    blocks: [
      .list(
        "OPTIONS",
        [
          ("--base-url <url>", baseURLDescription + ", which answers only after the cancellation"),
          (
            "--after <ms>",
            "Cancel this many milliseconds after the start, 1 to 60000, or when the request "
              + "ends if that comes first (default: as soon as the embedded server has the "
              + "request; 200 with --base-url)"
          ),
          (
            "--keep",
            "Fetch with whenAbandoned: .finish: the request completes after the caller left, "
              + "and a second caller joins it"
          ),
          helpOption,
        ]),
      .labelled(
        "EXIT STATUS",
        "0 every layer let go (with --keep: the request completed and served the second "
          + "caller); 1 the request ended before the cancellation or a layer held on; "
          + "64 usage error."),
    ])

  private static let progress = HelpPage(
    overview: """
      Two callers, one with try await and one with a completion handler, ask for one large \
      page, which the embedded server sends slowly: one HTTP request feeds both, and both \
      follow its progress, shown as a progress bar on standard error when it is a terminal.
      """,
    usage: ["progress", "[--base-url <url>]", "[--json]"],
    blocks: [
      .list(
        "OPTIONS",
        [
          (
            "--base-url <url>",
            baseURLDescription + "; a server that compresses its responses announces no "
              + "length, so the bar shows bytes without a share"
          ),
          (
            "--json",
            "Print one JSON object instead of text: \"callers\", \"http_requests\" (null with "
              + "--base-url), \"progress_updates\" (per caller), \"bytes\", \"total_bytes\" "
              + "(null when unknown) and \"same_page\"; no progress bar"
          ),
          helpOption,
        ]),
      .paragraph(
        "The bar is drawn only when standard error is a terminal and --json is not given: a "
          + "pipe or a log file never collects it."),
      .labelled(
        "EXIT STATUS", "0 both callers got the page; 1 a request failed; 64 usage error."),
    ])

  private static let bench = HelpPage(
    overview: """
      Run the benchmark suite; the report goes to standard output, progress to standard error.
      """,
    usage: ["bench", "[--json]", "[--quick]", "[--fail-on-miss]"],
    blocks: [
      .list(
        "OPTIONS",
        [
          ("--json", "Print one JSON object instead of the table"),
          ("--quick", "Run each scenario at about a tenth of its scale"),
          ("--fail-on-miss", "Exit with status 1 when a scenario misses its target (for CI)"),
          helpOption,
        ]),
      .labelled(
        "EXIT STATUS",
        "0 every scenario ran (whether or not it met its target, unless --fail-on-miss); 1 a "
          + "scenario failed to run or, with --fail-on-miss, missed its target; 64 usage error."),
    ])
}
