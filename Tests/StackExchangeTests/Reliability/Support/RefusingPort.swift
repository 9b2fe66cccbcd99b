import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A loopback port that refuses every connection for as long as this value lives: a socket
/// bound to it that never listens. Unlike a stopped server's port, no other test can take it.
struct RefusingPort: Sendable {
  struct SocketError: Error {
    let call: String
    let code: Int32
  }

  let port: Int
  private let descriptor: Int32

  init() throws {
    #if canImport(Glibc)
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
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
    guard bound else {
      let code = errno
      close(descriptor)
      throw SocketError(call: "bind", code: code)
    }
    self.descriptor = descriptor
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  /// `http://127.0.0.1:<port>`.
  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Frees the port.
  func release() {
    close(descriptor)
  }
}
