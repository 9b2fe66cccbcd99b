import Dispatch
import LockedValue
import OperationBridgeTesting
import OperationCore

/// A value under a lock that tasks can wait on: ``wait(until:timeout:)`` resumes once the value
/// satisfies a condition, or returns false when `timeout` expires first, so a broken
/// expectation fails a test instead of hanging it. Waiting never blocks a thread and ignores
/// task cancellation.
public final class Waitable<Value: Sendable>: Sendable {
  private struct Waiter {
    let condition: @Sendable (Value) -> Bool
    let continuation: CheckedContinuation<Bool, Never>
  }

  private struct State {
    var value: Value
    var waiters: [UInt64: Waiter] = [:]
    var nextWaiterID: UInt64 = 0
  }

  private let state: Locked<State>

  /// Starts with `value`.
  public init(_ value: Value) {
    state = Locked(State(value: value))
  }

  /// Reads the value under the lock.
  public func read<Result>(_ body: (Value) -> Result) -> Result {
    state.withLock { body($0.value) }
  }

  /// Changes the value under the lock, then resumes the waiters it satisfies, outside it.
  @discardableResult
  public func update<Result>(_ change: (inout Value) -> Result) -> Result {
    let (result, satisfied) = state.withLock { state -> (Result, [Waiter]) in
      let result = change(&state.value)
      let value = state.value
      let satisfied = state.waiters.filter { $0.value.condition(value) }
      for id in satisfied.keys { state.waiters[id] = nil }
      return (result, Array(satisfied.values))
    }
    for waiter in satisfied { waiter.continuation.resume(returning: true) }
    return result
  }

  /// Suspends until the value satisfies `condition`; false if `timeout` expired first.
  public func wait(
    until condition: @escaping @Sendable (Value) -> Bool, timeout: Duration = .testTimeout
  ) async -> Bool {
    await withCheckedContinuation { continuation in
      let id = state.withLock { state -> UInt64? in
        guard !condition(state.value) else { return nil }
        let id = state.nextWaiterID
        state.nextWaiterID += 1
        state.waiters[id] = Waiter(condition: condition, continuation: continuation)
        return id
      }
      guard let id else { return continuation.resume(returning: true) }
      expire(id, budget: WaitBudget(timeout, tick: waitableTick))
    }
  }

  /// Resumes waiter `id` with false once `budget` is spent, unless it was resumed before.
  private func expire(_ id: UInt64, budget: WaitBudget) {
    let step = min(waitableTick, budget.left)
    DispatchQueue.global().asyncAfter(deadline: .now() + step.seconds) { [self] in
      var budget = budget
      let spent = !budget.charge()
      let (waiting, expired) = state.withLock { state -> (Bool, Waiter?) in
        guard state.waiters[id] != nil else { return (false, nil) }
        return spent ? (false, state.waiters.removeValue(forKey: id)) : (true, nil)
      }
      expired?.continuation.resume(returning: false)
      if waiting { expire(id, budget: budget) }
    }
  }
}

/// How often a waiter's bound is charged.
private let waitableTick = Duration.milliseconds(250)
