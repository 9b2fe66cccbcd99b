import Foundation
import LockedValue
import OperationCore
import Synchronization

extension Benchmark {
  /// The cheapest possible operation: finishes with a value as soon as it starts.
  final class NoOpOperation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
    // No state of its own; the base class guards its state with its lock.

    /// Finishes at once with 1.
    override func main() {
      finish(returning: 1)
    }
  }

  /// Counts arrivals down to zero and resumes one waiting task when the last one arrives.
  final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let continuation = Locked<CheckedContinuation<Void, Never>?>(nil)

    /// Creates a countdown that waits for `count` arrivals.
    init(_ count: Int) {
      remaining = Atomic(count)
    }

    /// Records one arrival; the last one resumes the waiter.
    func arrive() {
      if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
        continuation.withLock { $0.take() }?.resume()
      }
    }

    /// Starts waiting, then calls `start` (which makes the arrivals happen), and returns once
    /// every arrival has happened.
    func wait(after start: () -> Void) async {
      await withCheckedContinuation { continuation in
        self.continuation.withLock { $0 = continuation }
        if remaining.load(ordering: .acquiring) <= 0 {
          self.continuation.withLock { $0.take() }?.resume()
        }
        start()
      }
    }
  }

  /// A counter that escaping closures can share.
  final class Counter: Sendable {
    private let storage = Atomic(0)

    /// Creates a counter at zero.
    init() {}

    /// The current count.
    var value: Int { storage.load(ordering: .relaxed) }

    /// Adds one; returns the new count.
    @discardableResult
    func increment() -> Int {
      storage.add(1, ordering: .relaxed).newValue
    }

    /// Subtracts one.
    func decrement() {
      storage.subtract(1, ordering: .relaxed)
    }

    /// Raises the count to `candidate` if that is higher.
    func raise(to candidate: Int) {
      storage.max(candidate, ordering: .relaxed)
    }
  }

  /// A gate that tasks (and callbacks) wait at until it opens, so many can be let through at
  /// once.
  final class StartGate: Sendable {
    /// Whether the gate is open, and who waits while it is closed.
    private struct State {
      var isOpen = false
      var waiters: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    /// Creates a closed gate.
    init() {}

    /// How many tasks and callbacks are waiting.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Suspends until the gate opens (returns at once if it is open).
    func wait() async {
      await withCheckedContinuation { continuation in
        whenOpen { continuation.resume() }
      }
    }

    /// Calls `action` when the gate opens (at once, on this thread, if it is open).
    func whenOpen(_ action: @escaping @Sendable () -> Void) {
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiters.append(action) }
        return state.isOpen
      }
      if isOpen { action() }
    }

    /// Opens the gate and calls every waiter (resuming every waiting task).
    func open() {
      let waiters = state.withLock { state in
        state.isOpen = true
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in waiters { waiter() }
    }
  }

  /// Polls `condition` every `interval` until it holds or `timeout` passes; returns whether
  /// it held. For untimed set-up and clean-up only.
  static func poll(
    every interval: Duration = .milliseconds(1),
    timeout: Duration = .seconds(30),
    until condition: () -> Bool
  ) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
      guard ContinuousClock.now < deadline else { return false }
      try? await Task.sleep(for: interval)
    }
    return true
  }

  /// Waits until `queue` holds no operations (untimed clean-up between runs).
  static func drain(_ queue: OperationQueue) async throws {
    guard await poll(until: { queue.operationCount == 0 }) else {
      throw BenchmarkError.timedOut("draining \(queue.name ?? "a queue")")
    }
  }

  /// Why a scenario could not run.
  enum BenchmarkError: Error, CustomStringConvertible {
    /// Set-up, clean-up or the measured work did not finish in time.
    case timedOut(String)
    /// The measured work failed.
    case failed(String)

    /// A one-line description.
    var description: String {
      switch self {
      case .timedOut(let what): "timed out \(what)"
      case .failed(let what): what
      }
    }
  }
}
