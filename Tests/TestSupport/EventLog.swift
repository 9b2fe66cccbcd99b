import AsyncBridge
import Dispatch
import Foundation
import LockedValue
import OperationCore

/// The one recorder of a manager's lifecycle events: it keeps them in order and per operation,
/// and lets a test wait for them (bounded).
///
/// It hears them as ``Hearing`` says: by default through `makeEvents()`, as an app does, with a
/// buffer so large (a million events) that a test never loses one; or on the publishing thread,
/// where a test sees (and may act on) each event the moment it is published. Events of the
/// log's own flush markers are kept out of everything it reports.
public final class EventLog: Sendable {
  /// How the log hears a manager's events.
  public enum Hearing: Sendable {
    /// Through a `makeEvents(bufferSize:)` subscription, on the log's own task, a little after
    /// each event is published.
    case stream(bufferSize: Int)
    /// On the thread that publishes each event, through the manager's `package` event hub,
    /// under the publishing operation's lock: an event is recorded before its publisher goes on
    /// (so a terminal event before the operation's waiters are resumed). `onEvent` may record
    /// or block for a bounded time there, but must not call back into the operation or its
    /// manager on that thread (hand such work to another thread).
    case publishingThread

    /// The stream with a buffer no test fills.
    public static let stream = Hearing.stream(bufferSize: 1 << 20)
  }

  private struct State {
    var events: [OperationEvent] = []
    var byOperation: [ObjectIdentifier: [OperationEvent]] = [:]
    /// Every event received, markers included: at `bufferSize`, some may have been dropped.
    var received = 0
    /// Kept alive so that no operation can reuse a marker's identity.
    var markers: [ObjectIdentifier: FlushMarker] = [:]
  }

  /// Where the events come from; ended when the log goes or ``stop(timeout:)`` is called.
  private enum Subscription {
    case stream(Task<Void, Never>)
    case hub(OperationEventHub, OperationEventHub.SubscriptionID)
  }

  /// How many unread events the subscription keeps before dropping the oldest (`Int.max` when
  /// the log hears events on the publishing thread, where none is dropped).
  public let bufferSize: Int
  private let state = Waitable(State())
  private let markersFinished = AsyncCounter()
  private let onEvent: (@Sendable (OperationEvent) -> Void)?
  private let subscription = Locked<Subscription?>(nil)

  /// Subscribes to `manager`'s events at once; events published from now on are recorded.
  ///
  /// - Parameters:
  ///   - manager: The manager to listen to.
  ///   - hearing: How the log hears the events.
  ///   - onEvent: Called for each recorded event (markers' excluded), after it is recorded: on
  ///     the log's task, or on the publishing thread (see ``Hearing/publishingThread``).
  public init(
    _ manager: OperationQueueManager, hearing: Hearing = .stream,
    onEvent: (@Sendable (OperationEvent) -> Void)? = nil
  ) {
    self.onEvent = onEvent
    switch hearing {
    case .stream(let bufferSize):
      self.bufferSize = bufferSize
      let stream = manager.makeEvents(bufferSize: bufferSize)
      let task = Task { [self] in
        for await event in stream { record(event) }
      }
      subscription.withLock { $0 = .stream(task) }
    case .publishingThread:
      bufferSize = .max
      let hub = manager.events
      let id = hub.subscribe(
        OperationEventHub.Subscriber(receive: { [weak self] in self?.record($0) }, finish: {}))
      subscription.withLock { $0 = .hub(hub, id) }
    }
  }

  deinit {
    Self.end(subscription.withLock { $0.take() })
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

  /// How many recorded events, of every operation, are of kind `kind`.
  public func count(of kind: OperationEvent.Kind) -> Int {
    state.read { $0.events.count { $0.kind == kind } }
  }

  /// The operations with a recorded event of kind `kind`.
  public func operationIDs(with kind: OperationEvent.Kind) -> Set<ObjectIdentifier> {
    state.read { Set($0.events.filter { $0.kind == kind }.map(\.operationID)) }
  }

  /// Every recorded terminal (`finished`) event, in order.
  public var finishedEvents: [OperationEvent] {
    state.read { $0.events.filter { if case .finished = $0.kind { true } else { false } } }
  }

  /// The `retrying` events of `operation` as (attempt, delay), in order.
  public func retries(of operation: Operation) -> [(attempt: Int, delay: Duration)] {
    kinds(of: operation).compactMap { kind in
      guard case .retrying(let attempt, let delay) = kind else { return nil }
      return (attempt, delay)
    }
  }

  /// The `failure` texts of the `retrying` events of `operation` (empty where one has none), in
  /// order.
  public func retryFailures(of operation: Operation) -> [String] {
    events(of: ObjectIdentifier(operation)).compactMap { event in
      guard case .retrying = event.kind else { return nil }
      return event.failure ?? ""
    }
  }

  /// Each recorded lifecycle's event kinds, in order. An operation's identity can be reused
  /// once it is released, so one identity's events are split where `enqueued` starts anew.
  public func lifecycles() -> [[OperationEvent.Kind]] {
    state.read { $0.byOperation }.values.flatMap { events in
      events.reduce(into: [[OperationEvent.Kind]]()) { lifecycles, event in
        if event.kind == .enqueued || lifecycles.isEmpty { lifecycles.append([]) }
        lifecycles[lifecycles.count - 1].append(event.kind)
      }
    }
  }

  /// Waits until at least `count` events of kind `kind` were recorded for `operation`; false
  /// after `timeout`.
  public func wait(
    for kind: OperationEvent.Kind, of operation: Operation, count: Int = 1,
    timeout: Duration = .testTimeout
  ) async -> Bool {
    let id = ObjectIdentifier(operation)
    return await wait(count: count, timeout: timeout) { $0.operationID == id && $0.kind == kind }
  }

  /// Waits until at least `count` recorded events satisfy `predicate`; false after `timeout`.
  public func wait(
    count: Int = 1, timeout: Duration = .testTimeout,
    where predicate: @escaping @Sendable (OperationEvent) -> Bool
  ) async -> Bool {
    await state.wait(
      until: { $0.events.lazy.filter(predicate).count >= count }, timeout: timeout)
  }

  /// Waits until every event `manager` published before this call is recorded, by running a
  /// marker operation through it and waiting for the marker's `finished` event; false after
  /// `timeout`.
  public func flush(_ manager: OperationQueueManager, timeout: Duration = .testTimeout) async
    -> Bool
  {
    let marker = FlushMarker()
    state.update { $0.markers[ObjectIdentifier(marker)] = marker }
    let target = markersFinished.value + 1
    manager.enqueue(marker)
    return await markersFinished.wait(untilAtLeast: target, timeout: timeout)
  }

  /// Ends the subscription and waits for its task to stop; false after `timeout`.
  public func stop(timeout: Duration = .testTimeout) async -> Bool {
    switch subscription.withLock({ $0.take() }) {
    case .stream(let task)?:
      task.cancel()
      return await completing(within: timeout) { await task.value } != nil
    case let ending:
      Self.end(ending)
      return true
    }
  }

  private static func end(_ subscription: Subscription?) {
    switch subscription {
    case .stream(let task)?: task.cancel()
    case .hub(let hub, let id)?: hub.unsubscribe(id)
    case nil: break
    }
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
