import AsyncBridge
import Dispatch
import LockedValue
import OperationCore

/// Records a manager's lifecycle events, through `makeEvents()`, for a command's report, and
/// lets the command wait (with a time limit) until they show something.
final class CommandEventLog: Sendable {
  /// The events so far, and the waits for a condition on them.
  private final class Storage: Sendable {
    struct Wait {
      let condition: @Sendable ([OperationEvent]) -> Bool
      let continuation: CheckedContinuation<Bool, Never>
    }

    struct State {
      var events: [OperationEvent] = []
      var waits: [UInt64: Wait] = [:]
      var nextWaitID: UInt64 = 0
    }

    let state = Locked(State())

    /// Records `event` and resumes, outside the lock, the waits whose condition now holds.
    func append(_ event: OperationEvent) {
      let satisfied = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
        state.events.append(event)
        let ids = state.waits.filter { $0.value.condition(state.events) }.map(\.key)
        return ids.compactMap { state.waits.removeValue(forKey: $0)?.continuation }
      }
      for continuation in satisfied { continuation.resume(returning: true) }
    }

    /// Ends a wait that is still pending with false.
    func expire(_ id: UInt64) {
      state.withLock { $0.waits.removeValue(forKey: id) }?.continuation.resume(returning: false)
    }
  }

  private let storage: Storage
  private let consumer: Task<Void, Never>

  /// Starts recording `manager`'s events from now on.
  init(manager: OperationQueueManager) {
    let events = manager.makeEvents()
    let storage = Storage()
    self.storage = storage
    consumer = Task {
      for await event in events { storage.append(event) }
    }
  }

  deinit {
    consumer.cancel()
  }

  /// The events recorded so far, oldest first.
  var events: [OperationEvent] { storage.state.withLock { $0.events } }

  /// How many recorded events are of `kind`.
  func count(_ kind: OperationEvent.Kind) -> Int {
    events.count { $0.kind == kind }
  }

  /// Waits until `condition` holds for the recorded events.
  ///
  /// - Returns: false if it did not hold within `timeout`.
  func wait(
    timeout: Duration, until condition: @escaping @Sendable ([OperationEvent]) -> Bool
  ) async -> Bool {
    let storage = storage
    return await withCheckedContinuation { continuation in
      let id = storage.state.withLock { state -> UInt64? in
        if condition(state.events) { return nil }
        let id = state.nextWaitID
        state.nextWaitID += 1
        state.waits[id] = Storage.Wait(condition: condition, continuation: continuation)
        return id
      }
      guard let id else { return continuation.resume(returning: true) }
      let seconds =
        Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18
      DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { storage.expire(id) }
    }
  }
}
