import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A bare TCP client for sending malformed or partial requests that URLSession never would.
final class RawHTTPClient {
  private var fd: Int32

  /// Connects to 127.0.0.1:`port`; `nil` if the connection is refused.
  init?(port: Int) {
    // Close-on-exec from the start: a process another test spawns meanwhile must not inherit
    // the socket, or closing it here would not end the connection.
    #if canImport(Glibc)
      fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
      fd = socket(AF_INET, SOCK_STREAM, 0)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    #endif
    var address = sockaddr_in()
    #if canImport(Darwin)
      address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      return nil
    }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  deinit { disconnect() }

  /// Sends `text` as bytes.
  func write(_ text: String) {
    write(Data(text.utf8))
  }

  /// Sends `data` completely.
  func write(_ data: Data) {
    data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        #if canImport(Glibc)
          let flags = Int32(MSG_NOSIGNAL)
        #else
          let flags: Int32 = 0
        #endif
        let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, flags)
        guard sent > 0 else { return }
        offset += sent
      }
    }
  }

  /// Reads until the server closes the connection (or 5 s pass) and returns the bytes as text.
  func readToEnd() -> String {
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      received.append(contentsOf: buffer[..<count])
    }
    return String(decoding: received, as: UTF8.self)
  }

  /// Reads once into `buffer` (waiting until something arrives); returns the byte count.
  func read(into buffer: inout [UInt8]) -> Int {
    buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
  }

  /// Closes the connection (FIN); idempotent.
  func disconnect() {
    guard fd >= 0 else { return }
    close(fd)
    fd = -1
  }
}
