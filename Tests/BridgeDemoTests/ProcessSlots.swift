import Foundation
import LockedValue

/// At most a few `bridge-demo` processes of the tests run at once. Started together, dozens of
/// them (each with its own runtime, and under ThreadSanitizer a large one) share the machine's
/// cores with each other and with the stress suites; a request of one of them can then wait past
/// the demo's own 15 s timeout and fail a test that has nothing to do with time.
final class ProcessSlots: Sendable {
  /// The tests' slots: twice the cores, at least two.
  static let demo = ProcessSlots(count: max(2, 2 * ProcessInfo.processInfo.activeProcessorCount))

  private struct State {
    var free: Int
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  private let state: Locked<State>

  private init(count: Int) {
    state = Locked(State(free: count))
  }

  /// Runs `body` once a slot is free, holding the slot until `body` returns.
  func run<Output: Sendable>(_ body: () async throws -> Output) async rethrows -> Output {
    await withCheckedContinuation { continuation in
      let now = state.withLock { state -> Bool in
        guard state.free > 0 else {
          state.waiting.append(continuation)
          return false
        }
        state.free -= 1
        return true
      }
      if now { continuation.resume() }
    }
    defer { release() }
    return try await body()
  }

  /// Hands the slot to the first waiting test, or frees it.
  private func release() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.waiting.isEmpty else {
        state.free += 1
        return nil
      }
      return state.waiting.removeFirst()
    }
    next?.resume()
  }
}
