import AsyncBridge
import Foundation
import OperationCore
import TestSupport

/// Counts a manager's lifecycle events per operation, from `manager.makeEvents()`.
final class StressEventLog: Sendable {
  /// The events of one operation.
  struct Counts: Sendable {
    var enqueued = 0
    var joined = 0
    var started = 0
    var stalled = 0
    /// Each `finished` event: how the operation ended and how many waiters it reached.
    var finished: [(completion: OperationEvent.Completion, waiterCount: Int)] = []
  }

  private struct State {
    var counts: [ObjectIdentifier: Counts] = [:]
    /// Kept alive so that no operation of the round can reuse a marker's identity.
    var markers: [ObjectIdentifier: FlushMarker] = [:]
  }

  private let state = Locked(State())
  private let markersFinished = AsyncCounter()
  private let onEnqueued: @Sendable (ObjectIdentifier) -> Void
  private let pump: Locked<Task<Void, Never>?> = Locked(nil)

  /// Subscribes to `manager`'s events at once. `onEnqueued` runs for each `enqueued` event.
  init(_ manager: OperationQueueManager, onEnqueued: @escaping @Sendable (ObjectIdentifier) -> Void)
  {
    self.onEnqueued = onEnqueued
    // Large enough never to drop an event of a round.
    let stream = manager.makeEvents(bufferSize: 1 << 20)
    let task = Task { [self] in
      for await event in stream { record(event) }
    }
    pump.withLock { $0 = task }
  }

  /// The events of `operation` recorded so far.
  func counts(of operation: Operation) -> Counts {
    state.withLock { $0.counts[ObjectIdentifier(operation)] ?? Counts() }
  }

  /// Every operation with events, markers excluded.
  var operationIDs: Set<ObjectIdentifier> { state.withLock { Set($0.counts.keys) } }

  /// Waits until every event `manager` published before this call is recorded: runs a marker
  /// operation through it and waits for the marker's `finished` event. False after `timeout`.
  func flush(_ manager: OperationQueueManager, timeout: Duration) async -> Bool {
    let marker = FlushMarker()
    state.withLock { $0.markers[ObjectIdentifier(marker)] = marker }
    let target = markersFinished.value + 1
    manager.enqueue(marker)
    return await markersFinished.wait(untilAtLeast: target, timeout: timeout)
  }

  /// Ends the subscription and waits for the pump to stop; false after `timeout`.
  func stop(timeout: Duration) async -> Bool {
    guard let task = pump.withLock({ $0.take() }) else { return true }
    task.cancel()
    return await completing(within: timeout) { await task.value } != nil
  }

  private func record(_ event: OperationEvent) {
    let isMarker = state.withLock { state -> Bool in
      if state.markers[event.operationID] != nil { return true }
      var counts = state.counts[event.operationID] ?? Counts()
      switch event.kind {
      case .enqueued: counts.enqueued += 1
      case .joined: counts.joined += 1
      case .started: counts.started += 1
      case .stalled: counts.stalled += 1
      case .retrying: break
      case .finished(let completion):
        counts.finished.append((completion, event.waiterCount))
      }
      state.counts[event.operationID] = counts
      return false
    }
    if isMarker {
      if event.kind == .finished(.success) { markersFinished.increment() }
    } else if event.kind == .enqueued {
      onEnqueued(event.operationID)
    }
  }
}

/// An operation that only marks a point in a manager's event stream.
private final class FlushMarker: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
  // No state of its own.
  override func main() {
    finish(returning: 0)
  }
}
