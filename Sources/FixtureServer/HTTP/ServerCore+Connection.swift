import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension ServerCore {
  /// Serves one connection on the calling thread: one request, one response, then close.
  func serve(_ socket: ConnectionSocket) {
    socket.configure(sendTimeoutSeconds: Self.sendTimeoutSeconds)
    switch exchange(on: socket) {
    case .graceful:
      socket.closeGracefully(timeout: Self.closeTimeout)
    case .reset:
      socket.resetOnClose()
    }
    // Leave the set before closing so that stop() never shuts down a reused descriptor.
    state.withLock { _ = $0.openConnections.remove(socket.fd) }
    close(socket.fd)
  }

  private func exchange(on socket: ConnectionSocket) -> WireResponse.Ending {
    let request: FixtureRequest
    switch RequestReader(socket: socket, limits: Self.requestLimits).read() {
    case .disconnected:
      return .graceful
    case .rejected(let rejection):
      let wire = FixtureResponse.text(rejection.reason + "\n", status: rejection.status)
        .wire(forMethod: "GET")
      _ = socket.sendAll(wire.head + wire.body)
      return .graceful
    case .request(let received):
      request = received
    }
    state.withLock { state in
      state.requestCount += 1
      state.requestCountByPath[request.path, default: 0] += 1
    }
    let response = responder(request)
    let wire = response.wire(forMethod: request.method)
    guard socket.stayConnected(for: response.latency), deliver(wire, on: socket) else {
      recordAbandonedResponse(to: request)
      return .graceful
    }
    return wire.ending
  }

  /// Sends head and body as the wire plan says.
  /// - Returns: `false` if the client went away first.
  private func deliver(_ wire: WireResponse, on socket: ConnectionSocket) -> Bool {
    if let chunk = wire.endlessChunk {
      guard socket.sendAll(wire.head + wire.body) else { return false }
      let interval = wire.dripInterval ?? .zero
      // Ends only when the client goes away: the response is then abandoned.
      while socket.sendAll(chunk), socket.stayConnected(for: interval) {}
      return false
    }
    if let pause = wire.pauseAfterHead {
      return socket.sendAll(wire.head) && socket.stayConnected(for: pause)
        && socket.sendAll(wire.body)
    }
    guard let interval = wire.dripInterval else {
      return socket.sendAll(wire.head + wire.body)
    }
    guard socket.sendAll(wire.head) else { return false }
    var offset = 0
    while offset < wire.body.count {
      let end = min(offset + wire.dripChunk, wire.body.count)
      guard socket.sendAll(wire.body.subdata(in: offset..<end)) else { return false }
      offset = end
      if offset < wire.body.count {
        guard socket.stayConnected(for: interval) else { return false }
      }
    }
    return true
  }
}
