#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A TCP socket bound to an ephemeral loopback port.
///
/// One that is not listening refuses every connection: a port that is certainly closed for as
/// long as the socket lives, which no other test can take over (unlike a stopped server's).
public struct LoopbackSocket: Sendable {
  /// The socket's file descriptor.
  public let descriptor: Int32
  /// The port it is bound to.
  public let port: Int

  /// A socket call that failed, with its `errno`.
  public struct Failure: Error {
    /// The call that failed.
    public let call: String
    /// Its `errno`.
    public let code: Int32
  }

  /// Binds a socket to 127.0.0.1 on an ephemeral port, and listens on it if `listening`.
  public static func bound(listening: Bool) throws -> LoopbackSocket {
    // Close-on-exec from the start, so that no process another test spawns keeps it open.
    #if canImport(Glibc)
      let descriptor = socket(
        AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
      _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    #endif
    guard descriptor >= 0 else { throw Failure(call: "socket", code: errno) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
      }
    }
    guard bound, !listening || listen(descriptor, 128) == 0 else {
      let code = errno
      close(descriptor)
      throw Failure(call: "bind/listen", code: code)
    }
    return LoopbackSocket(descriptor: descriptor, port: Int(UInt16(bigEndian: address.sin_port)))
  }

  /// Closes the socket.
  public func closeSocket() {
    close(descriptor)
  }
}
