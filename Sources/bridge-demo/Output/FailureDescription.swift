import FixtureServer
import OperationCore
import OperationNetworking
import StackExchange

/// One-line explanations of the errors a command can meet.
enum FailureDescription {
  /// `error` on one line, naming the cause: `HTTP 400 bad_parameter: site is required`,
  /// `could not connect to 127.0.0.1:8080 (URLError -1004)`, `undecodable body: …`. A backoff
  /// too long to wait out says so: `the API asked to back off: no /questions call on
  /// stackoverflow for another 3600 s, more than the 60 s the demo waits`.
  ///
  /// Both timeouts read the same and name the limit that expired: the operation's own
  /// (`OperationTimeoutError`) and the session's idle timeout (`URLError` -1001), which is
  /// the demo's `DemoEnvironment.idleTimeout`.
  static func oneLine(_ error: any Error) -> String {
    let idleTimeout = DemoEnvironment.idleTimeout
    let text: String
    switch error {
    case let error as OperationTimeoutError:
      text = timedOut(after: error.timeout)
    case let error as NetworkingError:
      if case .transport(let urlError) = error {
        text = transport(urlError, idleTimeout: idleTimeout)
      } else if case .badStatus(let status, _, let excerpt) = error,
        let apiError = error.stackExchangeAPIError
      {
        let words = [apiError.errorName, apiError.errorMessage].filter { !$0.isEmpty }
        // An error body that names nothing is shown as the body it is.
        text =
          words.isEmpty
          ? NetworkingError.badStatus(statusCode: status, serverError: nil, bodyExcerpt: excerpt)
            .description
          : "HTTP \(status) " + words.joined(separator: ": ")
      } else {
        text = error.description
      }
    case let error as BackoffError
    where error.retryAfter > QuestionsPageSequence.defaultMaxBackoffWait:
      text =
        "\(error), more than the \(duration(QuestionsPageSequence.defaultMaxBackoffWait)) "
        + "the demo waits"
    case let error as FixtureServerError:
      switch error {
      case .socketCall(let operation, let code):
        text = "cannot start the embedded server: \(operation) failed with errno \(code)"
      }
    case is CancellationError:
      text = "cancelled"
    default:
      text = String(describing: error)
    }
    // A server's words (an error message, a body excerpt) go to a terminal.
    return text.split(whereSeparator: \.isNewline).joined(separator: " ").terminalSafe
  }

  /// `the request timed out after 15 s`.
  static func timedOut(after limit: Duration) -> String {
    "the request timed out after \(duration(limit))"
  }

  /// `limit` for a reader: `15 s`, `1.5 s` (tenths cut, not rounded), `200 ms`. Read from the
  /// duration's components, so a backoff of `Int.max` seconds a server sent prints as such
  /// (converting it to milliseconds as an `Int` would trap).
  static func duration(_ limit: Duration) -> String {
    let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
    let (wholeSeconds, attoseconds) = limit.components
    var seconds = wholeSeconds
    // Rounded to the millisecond, carrying into the seconds.
    var milliseconds = (attoseconds + attosecondsPerMillisecond / 2) / attosecondsPerMillisecond
    if milliseconds == 1000 {
      (seconds, milliseconds) = seconds == .max ? (seconds, 999) : (seconds + 1, 0)
    }
    if seconds == 0 { return "\(milliseconds) ms" }
    if milliseconds == 0 { return "\(seconds) s" }
    return "\(seconds).\(milliseconds / 100) s"
  }
}
