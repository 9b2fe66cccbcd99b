import Dispatch
import OperationCore

/// A thread-safe list of observations, with bounded waits for a number of them.
public final class Recorder<Element: Sendable>: Sendable {
  private struct CountWaiter {
    let count: Int
    let continuation: CheckedContinuation<Bool, Never>
  }

  private struct State {
    var values: [Element] = []
    var nextID: UInt64 = 0
    var waiters: [UInt64: CountWaiter] = [:]
  }

  private let state = Locked(State())

  /// Creates an empty recorder.
  public init() {}

  /// Everything recorded so far, in order.
  public var values: [Element] { state.withLock { $0.values } }

  /// How many values were recorded.
  public var count: Int { state.withLock { $0.values.count } }

  /// Records `value` and resumes the waiters it satisfies, outside the lock.
  public func record(_ value: Element) {
    let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
      state.values.append(value)
      let count = state.values.count
      let ids = state.waiters.filter { $0.value.count <= count }.map(\.key)
      return ids.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
    }
    for continuation in ready { continuation.resume(returning: true) }
  }

  /// Waits until at least `count` values are recorded; false if `timeout` passed first.
  public func wait(forCount count: Int, timeout: Duration = .seconds(30)) async -> Bool {
    await withCheckedContinuation { continuation in
      let id = state.withLock { state -> UInt64? in
        if state.values.count >= count { return nil }
        let id = state.nextID
        state.nextID += 1
        state.waiters[id] = CountWaiter(count: count, continuation: continuation)
        return id
      }
      guard let id else { return continuation.resume(returning: true) }
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) { [weak self] in
        let expired = self?.state.withLock { $0.waiters.removeValue(forKey: id) }
        expired?.continuation.resume(returning: false)
      }
    }
  }
}
