import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A loopback TCP server that answers every connection with the same raw bytes, for responses
/// `FixtureHTTPServer` will not send (headers it manages itself), or never answers at all.
final class CannedServer: Sendable {
  /// A socket call that failed, with its `errno`.
  struct Failure: Error {
    let call: String
    let code: Int32
  }

  /// `http://127.0.0.1:<port>`.
  let baseURL: URL
  private let listener: Int32

  /// Listens on an ephemeral loopback port. With `response`, each connection gets it after
  /// the first bytes of the request (whatever they are: a TLS client hello too), then a close; without, connections are never accepted, so a
  /// client connects, sends its request and hears nothing until it gives up.
  init(response: Data?) throws {
    #if canImport(Glibc)
      let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let listener = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard listener >= 0 else { throw Failure(call: "socket", code: errno) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        bind(listener, address, length) == 0 && getsockname(listener, address, &length) == 0
      }
    }
    guard bound, listen(listener, 16) == 0 else {
      let code = errno
      close(listener)
      throw Failure(call: "bind/listen", code: code)
    }
    self.listener = listener
    baseURL = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
    guard let response else { return }
    Thread.detachNewThread { Self.serve(listener, response: response) }
  }

  deinit {
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
  }

  /// A raw HTTP/1.1 response: the status line, `headers`, `Connection: close`, then `body`.
  static func response(headers: [String], body: Data) -> Data {
    let head = (["HTTP/1.1 200 OK"] + headers + ["Connection: close", "", ""])
      .joined(separator: "\r\n")
    return Data(head.utf8) + body
  }

  /// Answers connections until the listener is shut down.
  private static func serve(_ listener: Int32, response: Data) {
    while true {
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { return }
      var buffer = [UInt8](repeating: 0, count: 65_536)
      _ = read(connection, &buffer, buffer.count)
      _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
      close(connection)
    }
  }
}
