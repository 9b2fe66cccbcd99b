import LockedValue
import OperationCore

@testable import StackExchange

/// A clock that moves only when told to, for backoff tests that must not sleep.
///
/// Tasks sleeping on it (through ``backoffClock``) wake when ``advance(by:)`` passes their
/// deadline, or at once with `CancellationError` when cancelled.
final class FakeClock: Sendable {
  private struct Sleeper {
    let deadline: ContinuousClock.Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = ContinuousClock.now
    var sleepers: [Int: Sleeper] = [:]
    var nextID = 0
    /// Ids whose task was cancelled before it registered.
    var cancelled: Set<Int> = []
  }

  private let state = Locked(State())

  /// The current fake time.
  var now: ContinuousClock.Instant { state.withLock { $0.now } }

  /// The number of tasks sleeping on this clock.
  var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// This clock as a backoff gate's time source.
  var backoffClock: BackoffClock {
    BackoffClock(now: { [self] in now }, sleep: { [self] in try await sleep(until: $0) })
  }

  /// Moves the fake time forward and wakes the sleepers whose deadline it reached.
  func advance(by duration: Duration) {
    let woken = state.withLock { state -> [Sleeper] in
      state.now += duration
      let due = state.sleepers.filter { $0.value.deadline <= state.now }
      for id in due.keys { state.sleepers[id] = nil }
      return Array(due.values)
    }
    for sleeper in woken { sleeper.continuation.resume() }
  }

  private func sleep(until deadline: ContinuousClock.Instant) async throws {
    let id = state.withLock { state -> Int in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let action = state.withLock { state -> Result<Void, any Error>? in
          if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
          if deadline <= state.now { return .success(()) }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return nil
        }
        if let action { continuation.resume(with: action) }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        guard let sleeper = state.sleepers.removeValue(forKey: id) else {
          state.cancelled.insert(id)
          return nil
        }
        return sleeper
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }
}
