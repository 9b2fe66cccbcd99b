import LockedValue
import OperationCore

/// The buffer between a manager's event hub and the one task iterating an
/// ``OperationEventStream``.
///
/// Publishers append under a lock and wake the consumer only when it waits; the consumer
/// takes everything buffered at once, so it touches the lock once per batch, not once per
/// event, and hands the batch's storage back for the next one (see ``BoundedEvents``). A
/// publisher holds its operation's lock, so it never resumes the consumer itself: it returns a
/// wake (the ``Parked`` consumer), which runs once that lock is unlocked and hands over
/// everything buffered by then. Events published before it runs ride with it, so a busy
/// publisher pays for one wake per batch, not one per event.
///
/// Written for `OperationEvent` alone: a generic buffer (such as `AsyncStream`'s) looks up its
/// generic metadata on every call when it is not specialised, which cost more than the rest of
/// publishing an event. For the same reason the parked continuation sits in a ``Parked`` box:
/// `CheckedContinuation`'s layout is known only at run time, and in an enum's payload it made
/// every event pay for run-time enum tag calls and outlined copies. The events themselves sit
/// beside the consumer's state, not in its payloads, so buffering one changes them in place.
final class EventBuffer: EventSink {
  /// What the consumer is doing.
  private enum Consumer {
    /// Not waiting: events accumulate until it takes them.
    case running
    /// Suspended, nothing buffered: the next event (or the end) resumes it.
    case parked(Parked)
    /// Suspended, and a publisher holds its wake: events accumulate until the wake runs and
    /// hands them over (see ``wake(_:)``).
    case waking
    /// Gone (its task was cancelled, or the stream freed): nothing is kept.
    case gone
  }

  private struct State {
    var consumer = Consumer.running
    /// Unread events, oldest first.
    var events: BoundedEvents
    /// The hub has gone (the manager was freed): the consumer gets what is buffered, then
    /// the end, and nothing is buffered after it.
    var isFinished = false
  }

  /// The suspended consumer's continuation, and the wake a publisher runs for it.
  final class Parked: EventWake {
    let continuation: CheckedContinuation<[OperationEvent]?, Never>
    private let buffer: EventBuffer

    init(_ continuation: CheckedContinuation<[OperationEvent]?, Never>, in buffer: EventBuffer) {
      self.continuation = continuation
      self.buffer = buffer
    }

    /// Resumes the consumer with what is buffered now.
    func run() { buffer.wake(self) }
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

  /// An empty buffer keeping at most `capacity` unread events (the oldest are dropped).
  init(capacity: Int) {
    state = Locked(State(events: BoundedEvents(capacity: capacity)))
  }

  // MARK: Publishers

  /// Buffers the event `makeEvent` builds (nothing once the stream has ended). Called under
  /// the publishing operation's lock, so it never resumes a waiting consumer itself: it
  /// returns the wake that does, for the publisher to run once that lock is unlocked.
  func receive(_ makeEvent: () -> OperationEvent) -> (any EventWake)? {
    state.withLock { state -> Parked? in
      switch state.consumer {
      case .running, .waking:
        // Built in place, and only if kept.
        if !state.isFinished { state.events.append(makeEvent()) }
        return nil
      case .parked(let parked):
        // A parked consumer has seen no end yet: the end resumes it.
        state.events.append(makeEvent())
        state.consumer = .waking
        return parked
      case .gone:
        return nil
      }
    }
  }

  /// The wake: resumes the consumer with everything buffered now (nil when the consumer has
  /// gone meanwhile).
  private func wake(_ parked: Parked) {
    let batch = state.withLock { state -> [OperationEvent]? in
      switch state.consumer {
      case .waking:
        state.consumer = .running
        // Holds at least the event that sent the wake: dropping keeps the newest.
        return state.events.takeAll()
      case .gone:
        return nil
      case .running, .parked:
        preconditionFailure("an event buffer woke a consumer that was not waiting")
      }
    }
    parked.continuation.resume(returning: batch)
  }

  /// The hub has gone: the consumer gets what is buffered, then the end.
  func finish() {
    let parked = state.withLock { state -> Parked? in
      state.isFinished = true
      switch state.consumer {
      case .parked(let parked):
        state.consumer = .running
        return parked
      case .running, .gone:
        return nil
      case .waking:
        // The wake a publisher holds hands over what is buffered; the end comes after it.
        return nil
      }
    }
    parked?.continuation.resume(returning: nil)
  }

  // MARK: The consumer

  /// Takes everything buffered, or tells the consumer to wait or stop. `spent` is the
  /// consumer's previous batch, emptied: its storage is taken (not shared) to hold a later one.
  func take(recycling spent: inout [OperationEvent]) -> Take {
    state.withLock { state in
      switch state.consumer {
      case .running:
        state.events.recycle(&spent)
        let batch = state.events.takeAll()
        if !batch.isEmpty { return .batch(batch) }
        return state.isFinished ? .end : .wait
      case .parked, .waking:
        preconditionFailure("one OperationEventStream iterator is used from two tasks at once")
      case .gone:
        return .end
      }
    }
  }

  /// Parks the consumer until events (or the end) arrive; resumes it at once if they already
  /// have.
  func wait(_ continuation: CheckedContinuation<[OperationEvent]?, Never>) {
    let now = state.withLock { state -> [OperationEvent]?? in
      switch state.consumer {
      case .running:
        let batch = state.events.takeAll()
        if !batch.isEmpty { return .some(batch) }
        if state.isFinished { return .some(nil) }
        state.consumer = .parked(Parked(continuation, in: self))
        return .none
      case .parked, .waking:
        preconditionFailure("one OperationEventStream iterator is used from two tasks at once")
      case .gone:
        return .some(nil)
      }
    }
    if let now { continuation.resume(returning: now) }
  }

  /// The consumer has gone: drops what is buffered and ends a pending wait.
  func terminate() {
    // The dropped events go with the returned value, released once the lock is.
    let (parked, _) = state.withLock { state -> (Parked?, BoundedEvents) in
      let parked: Parked?
      switch state.consumer {
      case .parked(let waiting):
        parked = waiting
      case .running, .waking, .gone:
        // The wake a publisher holds has the continuation, and ends the wait.
        parked = nil
      }
      state.consumer = .gone
      return (parked, state.events.removeAll())
    }
    parked?.continuation.resume(returning: nil)
  }
}
