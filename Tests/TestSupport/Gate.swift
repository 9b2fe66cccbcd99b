import Dispatch

/// A one-shot latch: closed until `open()`, then open for good.
///
/// Waiting never blocks a thread, ignores task cancellation (so a cancelled operation's closure
/// can use it to keep running) and is bounded: `wait(timeout:)` returns false when the gate did
/// not open in time, so a broken expectation fails a test instead of hanging it.
public final class Gate: Sendable {
  private struct State {
    var isOpen = false
    var callbacks: [@Sendable () -> Void] = []
  }

  private let state = Waitable(State())

  /// Creates a closed gate.
  public init() {}

  /// Whether `open()` was called.
  public var isOpen: Bool { state.read { $0.isOpen } }

  /// Opens the gate: resumes every waiter and runs every callback, outside the lock. Opening
  /// twice is harmless.
  public func open() {
    let callbacks = state.update { state -> [@Sendable () -> Void] in
      guard !state.isOpen else { return [] }
      state.isOpen = true
      defer { state.callbacks = [] }
      return state.callbacks
    }
    for callback in callbacks { callback() }
  }

  /// Runs `body` once the gate is open: at once on this thread if it is open already,
  /// otherwise on the thread that opens it.
  public func whenOpen(_ body: @escaping @Sendable () -> Void) {
    let runNow = state.update { state in
      if state.isOpen { return true }
      state.callbacks.append(body)
      return false
    }
    if runNow { body() }
  }

  /// Waits until the gate opens; false if `timeout` passed first.
  @discardableResult
  public func wait(timeout: Duration = .testTimeout) async -> Bool {
    await state.wait(until: { $0.isOpen }, timeout: timeout)
  }

  /// Blocks the calling thread until the gate opens; false if `timeout` passed first. Only for
  /// code that must hold a thread, such as a completion handler standing in for slow work.
  public func block(timeout: Duration = .testTimeout) -> Bool {
    let semaphore = DispatchSemaphore(value: 0)
    whenOpen { semaphore.signal() }
    return semaphore.wait(timeout: .now() + timeout.seconds) == .success
  }
}
