import Dispatch
import OperationCore

/// The buffer between a manager's event hub and the one task iterating an
/// ``OperationEventStream``.
///
/// Publishers append under a lock and wake the consumer only when it waits; the consumer
/// takes everything buffered at once, so it touches the lock once per batch, not once per
/// event. Written for `OperationEvent` alone: a generic buffer (such as `AsyncStream`'s) looks
/// up its generic metadata on every call when it is not specialised, which cost more than the
/// rest of publishing an event.
final class EventBuffer: Sendable {
  /// What the consumer is doing.
  private enum State {
    /// Not waiting: events accumulate. `isFinished` once the hub has gone (the manager was
    /// released): the consumer gets what is buffered, then the end.
    case buffering(BoundedEvents, isFinished: Bool)
    /// Suspended, nothing buffered: the next event (or the end) resumes it.
    case waiting(CheckedContinuation<[OperationEvent]?, Never>)
    /// The consumer has gone (its task was cancelled, or the stream released): nothing is kept.
    case terminated
  }

  /// What the consumer does after asking for events.
  enum Take {
    /// Takes these, in order.
    case batch([OperationEvent])
    /// Waits: nothing is buffered yet.
    case wait
    /// Stops: the stream has ended.
    case end
  }

  // A pthread lock, not `Mutex`: ThreadSanitizer does not see `Mutex`'s hand-off on Linux.
  private let state: Locked<State>
  private let capacity: Int

  /// An empty buffer keeping at most `capacity` unread events (the oldest are dropped).
  init(capacity: Int) {
    self.capacity = capacity
    state = Locked(.buffering(BoundedEvents(capacity: capacity), isFinished: false))
  }

  // MARK: Publishers

  /// Buffers `event`, or hands it to the waiting consumer. Called under the publishing
  /// operation's lock, so it never resumes the consumer itself: the resume goes to a global
  /// dispatch queue. Events published meanwhile are buffered behind `event`.
  func receive(_ event: OperationEvent) {
    let waiting = state.withLock { state -> CheckedContinuation<[OperationEvent]?, Never>? in
      switch consume state {
      case .buffering(var events, let isFinished):
        // Nothing comes after the end.
        if !isFinished { events.append(event) }
        state = .buffering(events, isFinished: isFinished)
        return nil
      case .waiting(let continuation):
        state = .buffering(BoundedEvents(capacity: capacity), isFinished: false)
        return continuation
      case .terminated:
        state = .terminated
        return nil
      }
    }
    if let waiting { DispatchQueue.global().async { waiting.resume(returning: [event]) } }
  }

  /// The hub has gone: the consumer gets what is buffered, then the end.
  func finish() {
    let waiting = state.withLock { state -> CheckedContinuation<[OperationEvent]?, Never>? in
      switch consume state {
      case .buffering(let events, _):
        state = .buffering(events, isFinished: true)
        return nil
      case .waiting(let continuation):
        state = .buffering(BoundedEvents(capacity: capacity), isFinished: true)
        return continuation
      case .terminated:
        state = .terminated
        return nil
      }
    }
    waiting?.resume(returning: nil)
  }

  // MARK: The consumer

  /// Takes everything buffered, or tells the consumer to wait or stop.
  func take() -> Take {
    state.withLock { state in
      switch consume state {
      case .buffering(var events, let isFinished):
        let batch = events.takeAll()
        state = .buffering(events, isFinished: isFinished)
        if !batch.isEmpty { return .batch(batch) }
        return isFinished ? .end : .wait
      case .waiting:
        preconditionFailure("an OperationEventStream is iterated from more than one task")
      case .terminated:
        state = .terminated
        return .end
      }
    }
  }

  /// Parks the consumer until events (or the end) arrive; resumes it at once if they already
  /// have.
  func wait(_ continuation: CheckedContinuation<[OperationEvent]?, Never>) {
    let now = state.withLock { state -> [OperationEvent]?? in
      switch consume state {
      case .buffering(var events, let isFinished):
        let batch = events.takeAll()
        if !batch.isEmpty {
          state = .buffering(events, isFinished: isFinished)
          return .some(batch)
        }
        if isFinished {
          state = .buffering(events, isFinished: true)
          return .some(nil)
        }
        state = .waiting(continuation)
        return .none
      case .waiting:
        preconditionFailure("an OperationEventStream is iterated from more than one task")
      case .terminated:
        state = .terminated
        return .some(nil)
      }
    }
    if let now { continuation.resume(returning: now) }
  }

  /// The consumer has gone: drops what is buffered and ends a pending wait.
  func terminate() {
    let waiting = state.withLock { state -> CheckedContinuation<[OperationEvent]?, Never>? in
      switch consume state {
      case .waiting(let continuation):
        state = .terminated
        return continuation
      case .buffering, .terminated:
        state = .terminated
        return nil
      }
    }
    waiting?.resume(returning: nil)
  }
}

/// Unread events, at most `capacity`: appending to a full buffer drops the oldest.
struct BoundedEvents {
  private var events: [OperationEvent] = []
  /// Where the unread events start in `events` (dropped ones stay before it until compacted).
  private var start = 0
  private let capacity: Int

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// Appends `event`, dropping the oldest unread one when full.
  mutating func append(_ event: OperationEvent) {
    events.append(event)
    guard events.count - start > capacity else { return }
    start += 1
    // Compact once the dropped prefix is as long as what is kept.
    if start >= capacity {
      events.removeFirst(start)
      start = 0
    }
  }

  /// The unread events, oldest first; the buffer is empty afterwards.
  mutating func takeAll() -> [OperationEvent] {
    // Moves the kept events down rather than copying them (a copy retains each one).
    if start > 0 { events.removeFirst(start) }
    start = 0
    defer { events = [] }
    return events
  }
}
