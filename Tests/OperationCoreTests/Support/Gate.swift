import Dispatch
import OperationCore

/// A one-shot latch: closed until `open()`, then open for good.
///
/// Waiting never blocks a thread and is bounded: `wait(timeout:)` returns false when the gate
/// did not open in time, so a broken expectation fails a test instead of hanging it.
final class Gate: Sendable {
  private struct State {
    var isOpen = false
    var nextID: UInt64 = 0
    var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    var callbacks: [@Sendable () -> Void] = []
  }

  private let state = Locked(State())

  init() {}

  /// Whether `open()` was called.
  var isOpen: Bool { state.withLock { $0.isOpen } }

  /// Opens the gate: resumes every waiter and runs every callback, outside the lock.
  func open() {
    let (waiters, callbacks) = state.withLock { state in
      guard !state.isOpen else {
        return ([CheckedContinuation<Bool, Never>](), [@Sendable () -> Void]())
      }
      state.isOpen = true
      defer {
        state.waiters.removeAll()
        state.callbacks.removeAll()
      }
      return (Array(state.waiters.values), state.callbacks)
    }
    for waiter in waiters { waiter.resume(returning: true) }
    for callback in callbacks { callback() }
  }

  /// Runs `body` once the gate is open: at once on this thread if it is open already,
  /// otherwise on the thread that opens it.
  func whenOpen(_ body: @escaping @Sendable () -> Void) {
    let runNow = state.withLock { state in
      if state.isOpen { return true }
      state.callbacks.append(body)
      return false
    }
    if runNow { body() }
  }

  /// Waits until the gate opens; false if `timeout` passed first.
  func wait(timeout: Duration = .seconds(30)) async -> Bool {
    await withCheckedContinuation { continuation in
      let id = state.withLock { state -> UInt64? in
        if state.isOpen { return nil }
        let id = state.nextID
        state.nextID += 1
        state.waiters[id] = continuation
        return id
      }
      guard let id else { return continuation.resume(returning: true) }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) { [weak self] in
        let expired = self?.state.withLock { $0.waiters.removeValue(forKey: id) }
        expired?.resume(returning: false)
      }
    }
  }
}

extension Duration {
  /// The duration in seconds, for Dispatch deadlines.
  var seconds: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
  }
}
