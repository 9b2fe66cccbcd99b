import FixtureServer
import OperationCore
import StackExchange

/// One-line explanations of the errors a command can meet.
enum FailureDescription {
  /// `error` on one line, naming the cause: `HTTP 400 bad_parameter: site is required`,
  /// `transport error -1004 (cannot connect to host)`, `undecodable body: …`.
  static func oneLine(_ error: any Error) -> String {
    let text: String
    switch error {
    case let error as NetworkingError:
      if case .badStatus(let status, _, _) = error, let apiError = error.stackExchangeAPIError {
        text = "HTTP \(status) \(apiError.errorName): \(apiError.errorMessage)"
      } else {
        text = error.description
      }
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
    return text.split(whereSeparator: \.isNewline).joined(separator: " ")
  }
}
