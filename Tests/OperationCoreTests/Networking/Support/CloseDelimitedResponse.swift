import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Answers one HTTP request on a loopback port with a `200` whose body has no `Content-Length`
/// and ends when the connection closes.
///
/// `FixtureHTTPServer` cannot send such a response: it always announces the body's length. A
/// thread accepts the first connection made within 30 seconds, reads the request head, sends
/// the response and closes the connection and the listening socket.
/// - Returns: The URL to request.
func serveOnceWithoutContentLength(_ body: Data) throws -> URL {
  let listener = try LoopbackSocket.bound(listening: true)
  Thread.detachNewThread {
    defer { listener.closeSocket() }
    var pending = pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&pending, 1, 30_000) == 1 else { return }
    let client = accept(listener.descriptor, nil, nil)
    guard client >= 0 else { return }
    defer { close(client) }
    var head: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while head.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
      let count = recv(client, &buffer, buffer.count, 0)
      guard count > 0 else { return }
      head += buffer[..<count]
    }
    let response =
      Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n".utf8)
      + body
    #if canImport(Glibc)
      let flags = Int32(MSG_NOSIGNAL)
    #else
      let flags: Int32 = 0
    #endif
    response.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let sent = send(client, bytes.baseAddress! + offset, bytes.count - offset, flags)
        guard sent > 0 else { return }
        offset += sent
      }
    }
  }
  return URL(string: "http://127.0.0.1:\(listener.port)/close-delimited")!
}
