import Dispatch
import OperationCore

/// A one-shot latch: closed until `open()`, then open for good.
///
/// Waiting never blocks a thread, ignores task cancellation (so a cancelled operation's closure
/// can use it to keep running) and is bounded: `wait(timeout:)` returns false when the gate did
/// not open in time, so a broken expectation fails a test instead of hanging it.
public final class Gate: Sendable {
  private struct State {
    var isOpen = false
    var nextID: UInt64 = 0
    var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    var callbacks: [@Sendable () -> Void] = []
  }

  private let state = Locked(State())

  /// Creates a closed gate.
  public init() {}

  /// Whether `open()` was called.
  public var isOpen: Bool { state.withLock { $0.isOpen } }

  /// Opens the gate: resumes every waiter and runs every callback, outside the lock. Opening
  /// twice is harmless.
  public func open() {
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
  public func whenOpen(_ body: @escaping @Sendable () -> Void) {
    let runNow = state.withLock { state in
      if state.isOpen { return true }
      state.callbacks.append(body)
      return false
    }
    if runNow { body() }
  }

  /// Waits until the gate opens; false if `timeout` passed first.
  @discardableResult
  public func wait(timeout: Duration = .seconds(30)) async -> Bool {
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

  /// Blocks the calling thread until the gate opens; false if `timeout` passed first. Only for
  /// code that must hold a thread, such as a completion handler standing in for slow work.
  public func block(timeout: Duration = .seconds(30)) -> Bool {
    let semaphore = DispatchSemaphore(value: 0)
    whenOpen { semaphore.signal() }
    return semaphore.wait(timeout: .now() + timeout.seconds) == .success
  }
}
