import Dispatch
import Foundation
import LockedValue

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The listening socket, the counters and the accept loop of a ``FixtureHTTPServer``.
///
/// The accept thread and the connection threads retain the core, not the server, so the server
/// can stop it from `deinit`.
final class ServerCore: Sendable {
  /// Mutable state shared by the accept loop, the connections and the public accessors.
  struct State {
    /// Set by ``stop()``; no connection is admitted afterwards.
    var isStopping = false
    /// Sockets of connections being served; ``stop()`` shuts them down.
    var openConnections: Set<Int32> = []
    /// Well-formed requests handed to the responder.
    var requestCount = 0
    /// ``requestCount`` split by request path.
    var requestCountByPath: [String: Int] = [:]
    /// Responses the client did not wait for.
    var abandonedResponseCount = 0
  }

  /// Connections waiting to be accepted before the kernel refuses new ones.
  static let backlog: Int32 = 512
  /// Limits and timeouts applied while reading a request.
  static let requestLimits = RequestReader.Limits(
    headBytes: 64 * 1024, bodyBytes: 1024 * 1024, timeout: .seconds(10))
  /// A send blocked for this long (client not reading) fails.
  static let sendTimeoutSeconds = 10
  /// How long a graceful close waits for the client to close its side.
  static let closeTimeout: Duration = .seconds(1)

  /// The listening socket.
  let listener: ListeningSocket
  /// Produces the response for each request.
  let responder: @Sendable (FixtureRequest) -> FixtureResponse
  /// Told about each abandoned response, on the connection's thread.
  let onAbandonedResponse: (@Sendable (FixtureRequest) -> Void)?
  /// Counters and open connections.
  let state = Locked(State())
  /// Signalled once when the accept loop has ended, then passed on by each ``stop()`` call.
  private let acceptLoopEnded = DispatchSemaphore(value: 0)

  /// Opens the listening socket; call ``startAcceptLoop()`` next.
  init(
    onAbandonedResponse: (@Sendable (FixtureRequest) -> Void)?,
    responder: @escaping @Sendable (FixtureRequest) -> FixtureResponse
  ) throws(FixtureServerError) {
    listener = try ListeningSocket(backlog: Self.backlog)
    self.onAbandonedResponse = onAbandonedResponse
    self.responder = responder
  }

  /// Starts the thread that accepts connections and gives each its own thread.
  func startAcceptLoop() {
    let thread = Thread { [self] in runAcceptLoop() }
    thread.name = "FixtureServer accept \(listener.port)"
    thread.start()
  }

  /// Stops accepting, shuts down open connections and waits for the accept loop to end.
  /// Idempotent; every call returns only after the loop has ended.
  func stop() {
    let isFirstCall = state.withLock { state in
      guard !state.isStopping else { return false }
      state.isStopping = true
      for fd in state.openConnections { _ = shutdown(fd, Int32(SHUT_RDWR)) }
      return true
    }
    // Only the first call may write to the pipe: the accept loop closes it on its way out.
    if isFirstCall { listener.wake() }
    acceptLoopEnded.wait()
    acceptLoopEnded.signal()
  }

  /// Counts one client that closed its connection before the response to `request` was
  /// complete and tells ``onAbandonedResponse``, unless the server itself is stopping.
  func recordAbandonedResponse(to request: FixtureRequest) {
    let counted = state.withLock { state in
      guard !state.isStopping else { return false }
      state.abandonedResponseCount += 1
      return true
    }
    if counted { onAbandonedResponse?(request) }
  }

  private func runAcceptLoop() {
    defer {
      listener.closeAll()
      acceptLoopEnded.signal()
    }
    while true {
      switch listener.acceptNext() {
      case .woken:
        return
      case .retry:
        continue
      case .connection(let fd):
        let admitted = state.withLock { state in
          guard !state.isStopping else { return false }
          state.openConnections.insert(fd)
          return true
        }
        guard admitted else {
          close(fd)
          continue
        }
        let thread = Thread { [self] in serve(ConnectionSocket(fd: fd)) }
        thread.name = "FixtureServer connection \(fd)"
        thread.start()
      }
    }
  }
}
