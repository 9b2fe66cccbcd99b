import LockedValue
import OperationCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where output goes: results to standard output, errors and progress to standard error.
///
/// Both are written unbuffered (see ``StandardStream``), so on a shared file an `error:` line
/// comes after the report it concludes. The first failed write to standard output is
/// remembered and later ones are skipped; ``exitStatus(after:)`` turns it into exit status 1,
/// with a line saying why unless the reader simply went away (`EPIPE`). A failed write to
/// standard error is ignored: there is nowhere left to report it.
enum Console {
  /// What became of the writes to standard output.
  enum OutputState: Equatable {
    /// Everything so far was written.
    case intact
    /// The reader went away (`EPIPE`), as with `| head -1`.
    case readerGone
    /// A write failed with this `errno`.
    case failed(errno: Int32)
  }

  private static let output = Locked(OutputState.intact)

  /// Readies the standard streams (see ``StandardStream/prepare()``); a standard output that
  /// was closed at startup counts as a failed write.
  static func prepare() {
    if StandardStream.prepare().contains(.output) { record(EBADF) }
  }

  /// Whether every write to standard output so far succeeded.
  static var isOutputIntact: Bool { output.withLock { $0 == .intact } }

  /// Writes `line` to standard output, unless a write to it already failed.
  static func out(_ line: String) {
    guard isOutputIntact else { return }
    if let code = StandardStream.output.write(line + "\n") { record(code) }
  }

  /// Writes `line` to standard error.
  static func error(_ line: String) {
    _ = StandardStream.error.write(line + "\n")
  }

  /// Reports a failed request: one `error: …` line naming the cause.
  static func error(_ failure: any Error) {
    error("error: \(FailureDescription.oneLine(failure))")
  }

  /// The process's exit status after a command that returned `status`: 1 when a write to
  /// standard output failed (saying why on standard error, except for `EPIPE`), else `status`.
  ///
  /// Output written through `stdio` (the benchmark report) is flushed and checked here too.
  static func exitStatus(after status: Int32) -> Int32 {
    if fflush(nil) != 0 { record(errno) }
    switch output.withLock({ $0 }) {
    case .intact:
      return status
    case .readerGone:
      return ExitCode.failure.rawValue
    case .failed(let code):
      error("error: cannot write to standard output: \(String(cString: strerror(code)))")
      return ExitCode.failure.rawValue
    }
  }

  /// Remembers the first failed write to standard output.
  private static func record(_ code: Int32) {
    output.withLock { state in
      if state == .intact { state = code == EPIPE ? .readerGone : .failed(errno: code) }
    }
  }
}
