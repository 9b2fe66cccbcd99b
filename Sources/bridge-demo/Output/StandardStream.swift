#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Standard output or standard error, written with `write(2)`: unbuffered, so lines reach a
/// file both share in the order they were written, and a failed write is an `errno` to act on
/// rather than a trap.
enum StandardStream: Int32 {
  case output = 1
  case error = 2

  /// Ignores `SIGPIPE`, so a reader that went away is an `EPIPE` from `write(2)`, and opens
  /// `/dev/null` on any of descriptors 0–2 that is closed, so that no socket the process opens
  /// later takes its number and receives what was meant for the terminal.
  ///
  /// - Returns: The streams that were closed at startup.
  static func prepare() -> [StandardStream] {
    signal(SIGPIPE, SIG_IGN)
    var closed: [StandardStream] = []
    for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
      let null = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
      if null >= 0, null != descriptor {
        dup2(null, descriptor)
        close(null)
      }
      if let stream = StandardStream(rawValue: descriptor) { closed.append(stream) }
    }
    return closed
  }

  /// Writes all of `text`.
  ///
  /// - Returns: The `errno` of the write that failed, or nil when everything was written.
  func write(_ text: String) -> Int32? {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { buffer in
        #if canImport(Glibc)
          Glibc.write(rawValue, buffer.baseAddress, buffer.count)
        #else
          Darwin.write(rawValue, buffer.baseAddress, buffer.count)
        #endif
      }
      if written < 0 {
        if errno == EINTR { continue }
        return errno
      }
      bytes = bytes.dropFirst(written)
    }
    return nil
  }

  /// Whether the stream is a terminal.
  var isTerminal: Bool { Terminal.isTerminal(rawValue) }
}
