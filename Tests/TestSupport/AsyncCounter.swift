/// A thread-safe counter that tasks can wait on: `wait(untilAtLeast:)` resumes once the count
/// reaches a target, or returns false when `timeout` expires first.
public final class AsyncCounter: Sendable {
  private let count = Waitable(0)

  /// Creates a counter at zero.
  public init() {}

  /// The current count.
  public var value: Int { count.read { $0 } }

  /// Adds one and returns the new count.
  @discardableResult
  public func increment() -> Int {
    count.update {
      $0 += 1
      return $0
    }
  }

  /// Subtracts one and returns the new count.
  @discardableResult
  public func decrement() -> Int {
    count.update {
      $0 -= 1
      return $0
    }
  }

  /// Raises the count to `target` unless it is already there.
  public func raise(toAtLeast target: Int) {
    count.update { $0 = max($0, target) }
  }

  /// Suspends until the count is at least `target`; false if `timeout` expired first.
  /// Ignores task cancellation, so it also works as a wait that a cancelled task cannot skip.
  public func wait(untilAtLeast target: Int, timeout: Duration = .testTimeout) async -> Bool {
    await count.wait(until: { $0 >= target }, timeout: timeout)
  }
}
