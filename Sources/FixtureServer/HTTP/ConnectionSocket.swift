import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Blocking I/O on one accepted connection; every wait is bounded by a deadline.
struct ConnectionSocket: Sendable {
  /// The connected socket.
  let fd: Int32

  /// Disables SIGPIPE on Darwin, sets a send timeout and disables Nagle's algorithm.
  func configure(sendTimeoutSeconds: Int) {
    #if canImport(Darwin)
      var noSignal: Int32 = 1
      _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
    #endif
    var timeout = timeval(tv_sec: sendTimeoutSeconds, tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var noDelay: Int32 = 1
    _ = setsockopt(
      fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
  }

  /// Waits until bytes (or the end of the stream) can be read, or `deadline` passes.
  /// - Returns: `false` on timeout.
  func waitReadable(until deadline: ContinuousClock.Instant) -> Bool {
    while true {
      let remaining = deadline - .now
      guard remaining > .zero else { return false }
      let milliseconds = min(Double(Int32.max), (remaining / .milliseconds(1)).rounded(.up))
      var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, Int32(milliseconds))
      if ready > 0 { return true }
      if ready < 0 && errno != EINTR { return true }  // let the next read report the error
    }
  }

  /// Reads what is available (up to 16 KiB), blocking until something arrives.
  /// - Returns: the bytes, or `nil` when the peer closed the connection or it failed.
  func receiveAvailable() -> [UInt8]? {
    let maxCount = 16 * 1024
    var buffer = [UInt8](repeating: 0, count: maxCount)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, maxCount, 0) }
      if count > 0 { return Array(buffer[..<count]) }
      if count < 0 && errno == EINTR { continue }
      return nil
    }
  }

  /// Sends all of `data`, handling partial writes.
  /// - Returns: `false` when the peer is gone (EPIPE, ECONNRESET) or the send timed out.
  func sendAll(_ data: Data) -> Bool {
    #if canImport(Glibc)
      let flags = Int32(MSG_NOSIGNAL)
    #else
      let flags: Int32 = 0
    #endif
    return data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, flags)
        if sent > 0 {
          offset += sent
        } else if sent < 0 && errno == EINTR {
          continue
        } else {
          return false
        }
      }
      return true
    }
  }

  /// Waits for `duration` while watching the connection; bytes that arrive meanwhile are
  /// discarded.
  /// - Returns: `false` as soon as the peer closes or resets the connection.
  func stayConnected(for duration: Duration) -> Bool {
    let deadline = ContinuousClock.now + duration
    while waitReadable(until: deadline) {
      guard receiveAvailable() != nil else { return false }
    }
    return true
  }

  /// Sends FIN, then reads until the peer closes (bounded by `timeout`) so that closing does not
  /// turn unread input into a reset that could destroy the response in flight.
  func closeGracefully(timeout: Duration) {
    _ = shutdown(fd, Int32(SHUT_WR))
    let deadline = ContinuousClock.now + timeout
    while waitReadable(until: deadline), receiveAvailable() != nil {}
  }

  /// Makes the next `close` send RST instead of FIN.
  func resetOnClose() {
    var option = linger(l_onoff: 1, l_linger: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
  }
}
