#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the process knows about the terminal, if any, behind its standard streams.
enum Terminal {
  /// The width help is wrapped to when standard output is not a terminal.
  static let defaultWidth = 80

  /// Whether `descriptor` is a terminal.
  static func isTerminal(_ descriptor: Int32) -> Bool {
    isatty(descriptor) == 1
  }

  /// The column count of the terminal on `descriptor` (`TIOCGWINSZ`), or ``defaultWidth``
  /// when it is not a terminal or does not say.
  static func width(of descriptor: Int32) -> Int {
    guard isTerminal(descriptor) else { return defaultWidth }
    var size = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
      return defaultWidth
    }
    return Int(size.ws_col)
  }
}
