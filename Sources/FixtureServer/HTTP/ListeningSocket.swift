import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A non-blocking TCP socket listening on 127.0.0.1, plus the pipe that wakes its accept loop.
struct ListeningSocket: Sendable {
  /// The listening socket.
  let fd: Int32
  /// The port the kernel picked.
  let port: Int
  /// Read end of the wake-up pipe; becomes readable when ``wake()`` is called.
  let wakeReadFD: Int32
  /// Write end of the wake-up pipe.
  let wakeWriteFD: Int32

  /// Binds an ephemeral port on the loopback interface and starts listening.
  init(backlog: Int32) throws(FixtureServerError) {
    #if canImport(Glibc)
      let socketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    #else
      let socketType = SOCK_STREAM
    #endif
    let fd = socket(AF_INET, socketType, 0)
    guard fd >= 0 else { throw .socketCall(operation: "socket", code: errno) }
    do throws(FixtureServerError) {
      try Self.configureAndListen(fd, backlog: backlog)
      port = try Self.boundPort(of: fd)
      var pipeFDs: [Int32] = [-1, -1]
      guard pipe(&pipeFDs) == 0 else {
        throw FixtureServerError.socketCall(operation: "pipe", code: errno)
      }
      for pipeFD in pipeFDs { _ = fcntl(pipeFD, F_SETFD, FD_CLOEXEC) }
      wakeReadFD = pipeFDs[0]
      wakeWriteFD = pipeFDs[1]
      self.fd = fd
    } catch {
      close(fd)
      throw error
    }
  }

  /// What one round of ``acceptNext()`` produced.
  enum AcceptResult {
    /// A new connected socket.
    case connection(Int32)
    /// Nothing usable this round (spurious wake-up, aborted connection); call again.
    case retry
    /// ``wake()`` was called: the accept loop must end.
    case woken
  }

  /// Waits until a connection is pending or ``wake()`` was called.
  func acceptNext() -> AcceptResult {
    var fds = [
      pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
      pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0),
    ]
    let ready = poll(&fds, nfds_t(fds.count), -1)
    if fds[1].revents != 0 { return .woken }
    guard ready > 0, fds[0].revents != 0 else { return .retry }
    let client = accept(fd, nil, nil)
    guard client >= 0 else {
      // Out of descriptors: back off instead of spinning on a listener that stays readable.
      if errno == EMFILE || errno == ENFILE { usleep(10_000) }
      return .retry
    }
    // At once (Glibc's module has no accept4): a process spawned by another thread must not
    // keep the connection open after the server closed it.
    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
    #if canImport(Darwin)
      // Darwin sockets inherit O_NONBLOCK from the listener; connections use blocking I/O.
      _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) & ~O_NONBLOCK)
    #endif
    return .connection(client)
  }

  /// Makes ``acceptNext()`` return ``AcceptResult/woken``; safe to call from any thread.
  func wake() {
    var byte: UInt8 = 1
    _ = write(wakeWriteFD, &byte, 1)
  }

  /// Closes the listening socket and the wake-up pipe.
  func closeAll() {
    for descriptor in [fd, wakeReadFD, wakeWriteFD] { close(descriptor) }
  }

  private static func configureAndListen(_ fd: Int32, backlog: Int32) throws(FixtureServerError) {
    var reuse: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    var address = sockaddr_in()
    #if canImport(Darwin)
      address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else { throw .socketCall(operation: "bind", code: errno) }
    guard listen(fd, backlog) == 0 else { throw .socketCall(operation: "listen", code: errno) }
  }

  private static func boundPort(of fd: Int32) throws(FixtureServerError) -> Int {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let result = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard result == 0 else { throw .socketCall(operation: "getsockname", code: errno) }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
