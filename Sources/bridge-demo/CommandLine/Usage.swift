/// The `--help` texts.
enum Usage {
  /// The help for `command`, or for the tool when nil.
  static func text(for command: Subcommand?) -> String {
    switch command {
    case nil, .help?: tool
    case .tour?: tour
    case .questions?: questions
    case .coalesce?: coalesce
    case .cancel?: cancel
    case .bench?: bench
    }
  }

  private static let tool = """
    OVERVIEW: A StackExchange "latest questions" feature on OperationBridge: an
    Operation/OperationQueue core used with try await and completion handlers, over real HTTP.

    USAGE: bridge-demo [<command>] [<options>]

    With no command, runs the offline tour against an embedded StackExchange fixture server
    on 127.0.0.1.

    COMMANDS:
      tour        Fetch, coalesce and cancel against the embedded server (the default)
      questions   Print the latest questions of a site
      coalesce    Many concurrent callers ask for one page: count the HTTP requests
      cancel      Cancel a fetch mid-request and show what happens to it
      bench       Run the benchmarks
      help        Show the help of a command

    OPTIONS:
      -h, --help  Show this help

    Requests go to <base-url>/questions?site=<site>&..., where <base-url> is the embedded
    server unless --base-url gives one (e.g. https://api.stackexchange.com/2.3).

    EXIT STATUS: 0 success, 1 a request failed, 64 usage error.
    See 'bridge-demo <command> --help' for a command's options.
    """

  private static let tour = """
    OVERVIEW: The offline tour: fetch a page, let concurrent callers share one request, cancel
    a request mid-flight; all over HTTP against an embedded fixture server on 127.0.0.1.

    USAGE: bridge-demo [tour]

    OPTIONS:
      -h, --help  Show this help
    """

  private static let questions = """
    OVERVIEW: Print the latest questions of a StackExchange site: title, score, answers, tags
    and link.

    USAGE: bridge-demo questions [--base-url <url>] [--site <name>] [--pagesize <n>] [--json]

    OPTIONS:
      --base-url <url>  The API root, http or https (default: the embedded fixture server),
                        e.g. https://api.stackexchange.com/2.3
      --site <name>     The API site parameter (default: stackoverflow)
      --pagesize <n>    How many questions, 1 to 100 (default: 10)
      --json            Print one JSON array of questions instead of text
      -h, --help        Show this help
    """

  private static let coalesce = """
    OVERVIEW: Start concurrent callers for the same page, half with try await, half with
    completion handlers, and report how many HTTP requests they caused.

    USAGE: bridge-demo coalesce [--base-url <url>] [--callers <n>]

    OPTIONS:
      --base-url <url>  The API root, http or https (default: the embedded fixture server,
                        which also counts the requests it receives)
      --callers <n>     How many callers, 1 to 1000 (default: 10)
      -h, --help        Show this help
    """

  private static let cancel = """
    OVERVIEW: Start a fetch, cancel the calling task, and show that the caller got
    CancellationError, the operation was cancelled, the HTTP request was abandoned and the
    queue drained.

    USAGE: bridge-demo cancel [--base-url <url>] [--after <ms>]

    OPTIONS:
      --base-url <url>  The API root, http or https (default: the embedded fixture server,
                        which answers only after the cancellation)
      --after <ms>      Cancel this many milliseconds after the start, 1 to 60000
                        (default: as soon as the embedded server has the request;
                        200 with --base-url)
      -h, --help        Show this help
    """

  private static let bench = """
    OVERVIEW: Run the benchmark suite; the report goes to standard output, progress to
    standard error.

    USAGE: bridge-demo bench [--json] [--quick]

    OPTIONS:
      --json      Print one JSON object instead of the table
      --quick     Run each scenario at about a tenth of its scale
      -h, --help  Show this help
    """
}
