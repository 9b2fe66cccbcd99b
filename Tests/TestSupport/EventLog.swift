import AsyncBridge
import Dispatch
import Foundation
import LockedValue
import OperationCore

/// Records a manager's lifecycle events (through `makeEvents()`) and lets a test wait for them.
///
/// The buffer is large (a million events by default) so that a test never loses one; events of
/// the log's own flush markers are kept out of everything it reports.
public final class EventLog: Sendable {
  private struct State {
    var events: [OperationEvent] = []
    var byOperation: [ObjectIdentifier: [OperationEvent]] = [:]
    /// Every event received, markers included: at `bufferSize`, some may have been dropped.
    var received = 0
    /// Kept alive so that no operation can reuse a marker's identity.
    var markers: [ObjectIdentifier: FlushMarker] = [:]
  }

  /// How many unread events the subscription keeps before dropping the oldest.
  public let bufferSize: Int
  private let state = Waitable(State())
  private let markersFinished = AsyncCounter()
  private let onEvent: (@Sendable (OperationEvent) -> Void)?
  private let pump = Locked<Task<Void, Never>?>(nil)

  /// Subscribes to `manager`'s events at once; events published from now on are recorded.
  ///
  /// - Parameters:
  ///   - manager: The manager to listen to.
  ///   - bufferSize: The subscription's buffer.
  ///   - onEvent: Called for each recorded event (markers' excluded), on the log's task.
  public init(
    _ manager: OperationQueueManager, bufferSize: Int = 1 << 20,
    onEvent: (@Sendable (OperationEvent) -> Void)? = nil
  ) {
    self.bufferSize = bufferSize
    self.onEvent = onEvent
    let stream = manager.makeEvents(bufferSize: bufferSize)
    let task = Task { [self] in
      for await event in stream { record(event) }
    }
    pump.withLock { $0 = task }
  }

  deinit {
    pump.withLock { $0 }?.cancel()
  }

  /// Every event recorded so far, in order.
  public var events: [OperationEvent] { state.read { $0.events } }

  /// Whether the subscription may have dropped events: it received as many as its buffer holds.
  public var mayHaveDropped: Bool { state.read { $0.received >= bufferSize } }

  /// Every operation with recorded events.
  public var operationIDs: Set<ObjectIdentifier> { state.read { Set($0.byOperation.keys) } }

  /// The recorded events of the operation with identity `id`, in order.
  public func events(of id: ObjectIdentifier) -> [OperationEvent] {
    state.read { $0.byOperation[id] ?? [] }
  }

  /// The kinds of the recorded events of `operation`, in order.
  public func kinds(of operation: Operation) -> [OperationEvent.Kind] {
    events(of: ObjectIdentifier(operation)).map(\.kind)
  }

  /// The recorded events of `operation` of kind `kind`.
  public func events(_ kind: OperationEvent.Kind, of operation: Operation) -> [OperationEvent] {
    events(of: ObjectIdentifier(operation)).filter { $0.kind == kind }
  }

  /// Waits until at least `count` events of kind `kind` were recorded for `operation`; false
  /// after `timeout`.
  public func wait(
    for kind: OperationEvent.Kind, of operation: Operation, count: Int = 1,
    timeout: Duration = .seconds(30)
  ) async -> Bool {
    let id = ObjectIdentifier(operation)
    return await wait(count: count, timeout: timeout) { $0.operationID == id && $0.kind == kind }
  }

  /// Waits until at least `count` recorded events satisfy `predicate`; false after `timeout`.
  public func wait(
    count: Int = 1, timeout: Duration = .seconds(30),
    where predicate: @escaping @Sendable (OperationEvent) -> Bool
  ) async -> Bool {
    await state.wait(
      until: { $0.events.lazy.filter(predicate).count >= count }, timeout: timeout)
  }

  /// Waits until every event `manager` published before this call is recorded, by running a
  /// marker operation through it and waiting for the marker's `finished` event; false after
  /// `timeout`.
  public func flush(_ manager: OperationQueueManager, timeout: Duration = .seconds(30)) async
    -> Bool
  {
    let marker = FlushMarker()
    state.update { $0.markers[ObjectIdentifier(marker)] = marker }
    let target = markersFinished.value + 1
    manager.enqueue(marker)
    return await markersFinished.wait(untilAtLeast: target, timeout: timeout)
  }

  /// Ends the subscription and waits for its task to stop; false after `timeout`.
  public func stop(timeout: Duration = .seconds(30)) async -> Bool {
    guard let task = pump.withLock({ $0.take() }) else { return true }
    task.cancel()
    return await completing(within: timeout) { await task.value } != nil
  }

  private func record(_ event: OperationEvent) {
    let isMarker = state.update { state -> Bool in
      state.received += 1
      if state.markers[event.operationID] != nil { return true }
      state.events.append(event)
      state.byOperation[event.operationID, default: []].append(event)
      return false
    }
    if !isMarker {
      onEvent?(event)
    } else if event.kind == .finished(.success) {
      markersFinished.increment()
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
