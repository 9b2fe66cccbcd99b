import Foundation
import OperationCore
import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: canned replies by path, one thread per
/// connection, one request per connection (`Connection: close`), and counters a test can poll.
final class LoopbackHTTPServer: Sendable {
  /// What the server does with a request for a path.
  enum Reply: Sendable {
    /// Sends a complete response after `delay`. Without `contentLength`, the body runs until
    /// the connection closes.
    case respond(
      status: Int, contentType: String = "application/json", body: Data,
      delay: Duration = .zero, contentLength: Bool = true)
    /// Reads the request and never answers; counts the connection as closed when the client
    /// closes it.
    case hang
  }

  private struct Stats {
    var requests: [String: Int] = [:]
    var closedByClient = 0
    var openConnections: Set<Int32> = []
    var stopped = false
  }

  /// The port the server listens on.
  let port: Int
  private let listener: Int32
  private let routes: [String: Reply]
  private let stats = Locked(Stats())

  /// Starts listening on an ephemeral loopback port.
  init(routes: [String: Reply]) throws {
    self.routes = routes
    let socket = try LoopbackSocket.bound(listening: true)
    listener = socket.descriptor
    port = socket.port
    Thread.detachNewThread { [self] in acceptLoop() }
  }

  /// The URL of `path` on this server.
  func url(_ path: String) -> URL {
    URL(string: "http://127.0.0.1:\(port)\(path)")!
  }

  /// How many requests arrived for `path` (query ignored).
  func requestCount(_ path: String) -> Int { stats.withLock { $0.requests[path, default: 0] } }

  /// How many `hang` connections the client closed.
  var connectionsClosedByClient: Int { stats.withLock { $0.closedByClient } }

  /// Stops accepting and closes every connection still open.
  func stop() {
    let open = stats.withLock { stats -> Set<Int32> in
      stats.stopped = true
      return stats.openConnections
    }
    shutdown(listener, Int32(SHUT_RDWR))
    for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
  }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 {
        if errno == EINTR { continue }
        break
      }
      let accepted = stats.withLock { stats in
        guard !stats.stopped else { return false }
        stats.openConnections.insert(client)
        return true
      }
      guard accepted else {
        close(client)
        break
      }
      Thread.detachNewThread { [self] in serve(client) }
    }
    close(listener)
  }

  private func serve(_ client: Int32) {
    defer {
      stats.withLock { _ = $0.openConnections.remove(client) }
      close(client)
    }
    guard let path = readRequestPath(client) else { return }
    stats.withLock { $0.requests[path, default: 0] += 1 }
    switch routes[path] ?? .respond(status: 404, contentType: "text/plain", body: Data()) {
    case .respond(let status, let contentType, let body, let delay, let contentLength):
      if delay > .zero { Thread.sleep(forTimeInterval: Self.seconds(delay)) }
      var head = "HTTP/1.1 \(status) Canned\r\nContent-Type: \(contentType)\r\n"
      if contentLength { head += "Content-Length: \(body.count)\r\n" }
      head += "Connection: close\r\n\r\n"
      sendAll(Data(head.utf8) + body, to: client)
      shutdown(client, Int32(SHUT_WR))
      drain(client)
    case .hang:
      drain(client)
      stats.withLock { if !$0.stopped { $0.closedByClient += 1 } }
    }
  }

  /// Reads the request head; returns the path without its query.
  private func readRequestPath(_ client: Int32) -> String? {
    var received = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    let terminator: [UInt8] = Array("\r\n\r\n".utf8)
    while received.firstRange(of: terminator) == nil {
      let count = recv(client, &buffer, buffer.count, 0)
      if count <= 0 || received.count > 65_536 { return nil }
      received += buffer[0..<count]
    }
    let requestLine = String(decoding: received.prefix { $0 != 13 }, as: UTF8.self)
    let target = requestLine.split(separator: " ").dropFirst().first ?? ""
    return String(target.split(separator: "?", omittingEmptySubsequences: false).first ?? "")
  }

  /// Reads until the peer closes (or the connection is shut down).
  private func drain(_ client: Int32) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while recv(client, &buffer, buffer.count, 0) > 0 {}
  }

  private func sendAll(_ data: Data, to client: Int32) {
    #if canImport(Glibc)
      let flags = Int32(MSG_NOSIGNAL)
    #else
      let flags: Int32 = 0
    #endif
    data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let sent = send(client, bytes.baseAddress! + offset, bytes.count - offset, flags)
        if sent <= 0 { return }
        offset += sent
      }
    }
  }

  private static func seconds(_ duration: Duration) -> Double {
    let parts = duration.components
    return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
  }
}
