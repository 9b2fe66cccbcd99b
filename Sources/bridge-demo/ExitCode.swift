/// The process exit statuses of `bridge-demo`.
enum ExitCode: Int32 {
  /// The command did what it was asked.
  case success = 0
  /// A request failed, a demonstration did not show what it should, or standard output could
  /// not be written.
  case failure = 1
  /// The command line was wrong (`EX_USAGE`).
  case usage = 64
}
