import Dispatch
import OperationCore

/// A thread-safe counter that tasks can wait on: `wait(untilAtLeast:)` resumes once the count
/// reaches a target, or returns false when `timeout` expires first, so a broken expectation
/// fails the test instead of hanging it.
public final class AsyncCounter: Sendable {
  private struct Waiter {
    let target: Int
    let continuation: CheckedContinuation<Bool, Never>
  }

  private struct State {
    var value = 0
    var waiters: [UInt64: Waiter] = [:]
    var nextWaiterID: UInt64 = 0
  }

  private let state = Locked(State())

  /// Creates a counter at zero.
  public init() {}

  /// The current count.
  public var value: Int { state.withLock { $0.value } }

  /// Adds one and returns the new count.
  @discardableResult
  public func increment() -> Int {
    update { $0 += 1 }
  }

  /// Subtracts one and returns the new count.
  @discardableResult
  public func decrement() -> Int {
    update { $0 -= 1 }
  }

  /// Raises the count to `target` unless it is already there.
  public func raise(toAtLeast target: Int) {
    _ = update { $0 = max($0, target) }
  }

  /// Suspends until the count is at least `target`; false if `timeout` expired first.
  /// Ignores task cancellation, so it also works as a wait that a cancelled task cannot skip.
  public func wait(untilAtLeast target: Int, timeout: Duration = .seconds(30)) async -> Bool {
    await withCheckedContinuation { continuation in
      let id = state.withLock { state -> UInt64? in
        guard state.value < target else { return nil }
        let id = state.nextWaiterID
        state.nextWaiterID += 1
        state.waiters[id] = Waiter(target: target, continuation: continuation)
        return id
      }
      guard let id else { return continuation.resume(returning: true) }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) { [self] in
        let expired = state.withLock { $0.waiters.removeValue(forKey: id) }
        expired?.continuation.resume(returning: false)
      }
    }
  }

  private func update(_ change: (inout Int) -> Void) -> Int {
    let (value, reached) = state.withLock { state -> (Int, [Waiter]) in
      change(&state.value)
      let reached = state.waiters.filter { $0.value.target <= state.value }
      for id in reached.keys { state.waiters[id] = nil }
      return (state.value, Array(reached.values))
    }
    for waiter in reached { waiter.continuation.resume(returning: true) }
    return value
  }
}
