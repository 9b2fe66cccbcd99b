import Foundation

/// Where output goes: results to standard output, errors and progress to standard error.
enum Console {
  /// Writes `line` to standard output.
  static func out(_ line: String) {
    print(line)
  }

  /// Writes `line` to standard error.
  static func error(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }

  /// Reports a failed request: one `error: …` line naming the cause.
  static func error(_ failure: any Error) {
    error("error: \(FailureDescription.oneLine(failure))")
  }
}
