import OperationCore
import TestSupport

/// A one-shot latch: tasks wait until it opens, and once open it stays open. Waits are bounded.
final class Latch: Sendable {
  private struct State {
    var isOpen = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Locked(State())

  /// Whether the latch has opened.
  var isOpen: Bool { state.withLock { $0.isOpen } }

  /// Opens the latch, resuming every waiter. Opening twice is harmless.
  func open() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Suspends until the latch opens; false if `timeout` expired first.
  @discardableResult
  func wait(timeout: Duration = .seconds(10)) async -> Bool {
    await completing(within: timeout) { [state] in
      await withCheckedContinuation { continuation in
        let openAlready = state.withLock { state -> Bool in
          if state.isOpen { return true }
          state.waiters.append(continuation)
          return false
        }
        if openAlready { continuation.resume() }
      }
      return true
    } ?? false
  }
}
