/// The process exit statuses of `bridge-demo`.
enum ExitCode: Int32 {
  /// The command did what it was asked.
  case success = 0
  /// A request failed, or a demonstration did not show what it should.
  case failure = 1
  /// The command line was wrong (`EX_USAGE`).
  case usage = 64
}
