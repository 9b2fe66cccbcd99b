import AsyncBridge
import Foundation
import OperationCore

/// Records a manager's lifecycle events (through `makeEvents()`) and lets a test wait for them.
final class EventLog: Sendable {
  private final class Storage: Sendable {
    private struct Waiter {
      let condition: @Sendable ([OperationEvent]) -> Bool
      let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
      var events: [OperationEvent] = []
      var waiters: [UInt64: Waiter] = [:]
      var nextWaiterID: UInt64 = 0
    }

    private let state = Locked(State())

    var events: [OperationEvent] { state.withLock { $0.events } }

    func append(_ event: OperationEvent) {
      let satisfied = state.withLock { state -> [Waiter] in
        state.events.append(event)
        let events = state.events
        let satisfied = state.waiters.filter { $0.value.condition(events) }
        for id in satisfied.keys { state.waiters[id] = nil }
        return Array(satisfied.values)
      }
      for waiter in satisfied { waiter.continuation.resume(returning: true) }
    }

    func wait(
      until condition: @escaping @Sendable ([OperationEvent]) -> Bool, timeout: Duration
    ) async -> Bool {
      await withCheckedContinuation { continuation in
        let id = state.withLock { state -> UInt64? in
          guard !condition(state.events) else { return nil }
          let id = state.nextWaiterID
          state.nextWaiterID += 1
          state.waiters[id] = Waiter(condition: condition, continuation: continuation)
          return id
        }
        guard let id else { return continuation.resume(returning: true) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) { [self] in
          let expired = state.withLock { $0.waiters.removeValue(forKey: id) }
          expired?.continuation.resume(returning: false)
        }
      }
    }
  }

  private let storage = Storage()
  private let pump: Task<Void, Never>

  /// Subscribes to `manager`'s events at once; events published from now on are recorded.
  init(_ manager: OperationQueueManager) {
    let stream = manager.makeEvents()
    let storage = self.storage
    pump = Task {
      for await event in stream { storage.append(event) }
    }
  }

  deinit {
    pump.cancel()
  }

  /// Every event recorded so far, in order.
  var events: [OperationEvent] { storage.events }

  /// The kinds of the recorded events of `operation`, in order.
  func kinds(of operation: Operation) -> [OperationEvent.Kind] {
    let id = ObjectIdentifier(operation)
    return events.filter { $0.operationID == id }.map(\.kind)
  }

  /// The recorded events of `operation` of kind `kind`.
  func events(_ kind: OperationEvent.Kind, of operation: Operation) -> [OperationEvent] {
    let id = ObjectIdentifier(operation)
    return events.filter { $0.operationID == id && $0.kind == kind }
  }

  /// Waits until at least `count` events of kind `kind` were recorded for `operation`.
  func wait(
    for kind: OperationEvent.Kind, of operation: Operation, count: Int = 1,
    timeout: Duration = .seconds(30)
  ) async -> Bool {
    let id = ObjectIdentifier(operation)
    return await storage.wait(
      until: { events in
        events.lazy.filter { $0.operationID == id && $0.kind == kind }.count >= count
      }, timeout: timeout)
  }

  /// Waits until at least `count` recorded events satisfy `predicate`.
  func wait(
    count: Int = 1, timeout: Duration = .seconds(30),
    where predicate: @escaping @Sendable (OperationEvent) -> Bool
  ) async -> Bool {
    await storage.wait(
      until: { events in events.lazy.filter(predicate).count >= count }, timeout: timeout)
  }

  /// Waits until every event published by `manager` so far is recorded, by running a marker
  /// operation through it and waiting for the marker's `finished` event.
  func flush(_ manager: OperationQueueManager, timeout: Duration = .seconds(30)) async -> Bool {
    let marker = ImmediateOperation(value: 0)
    manager.enqueue(marker)
    return await wait(for: .finished(.success), of: marker, timeout: timeout)
  }
}
