import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A loopback TCP server that answers every connection with the same raw bytes, for responses
/// `FixtureHTTPServer` will not send (headers it manages itself), or never answers at all.
final class CannedServer: Sendable {
  /// `http://127.0.0.1:<port>`.
  let baseURL: URL
  private let listener: LoopbackSocket

  /// Listens on an ephemeral loopback port. With `response`, each connection gets it after
  /// the first bytes of the request (whatever they are: a TLS client hello too), then a close;
  /// without, connections are never accepted, so a client connects, sends its request and
  /// hears nothing until it gives up.
  init(response: Data?) throws {
    let listener = try LoopbackSocket.bound(listening: true)
    self.listener = listener
    baseURL = URL(string: "http://127.0.0.1:\(listener.port)")!
    guard let response else { return }
    Thread.detachNewThread { Self.serve(listener.descriptor, response: response) }
  }

  deinit {
    shutdown(listener.descriptor, Int32(SHUT_RDWR))
    listener.closeSocket()
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
      // Close-on-exec at once: a process spawned meanwhile must not keep the connection open.
      _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
      var buffer = [UInt8](repeating: 0, count: 65_536)
      _ = read(connection, &buffer, buffer.count)
      _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
      close(connection)
    }
  }
}
