/// A one-shot latch: tasks wait until it opens, and once open it stays open.
///
/// `wait` is bounded (it returns false when the timeout expires) and ignores cancellation, so
/// an operation's closure can use it to keep running after it has been cancelled.
final class Gate: Sendable {
  private let counter = AsyncCounter()

  /// Whether the gate has opened.
  var isOpen: Bool { counter.value > 0 }

  /// Opens the gate, resuming every waiter. Opening twice is harmless.
  func open() {
    counter.raise(toAtLeast: 1)
  }

  /// Suspends until the gate opens; false if `timeout` expired first.
  @discardableResult
  func wait(timeout: Duration = .seconds(30)) async -> Bool {
    await counter.wait(untilAtLeast: 1, timeout: timeout)
  }
}
