import Foundation

/// The subscribers an operation's events go to: those of its manager when the manager claimed
/// it, less those that have unsubscribed since.
struct EventAudience: Sendable {
  private let subscribers: [OperationEventHub.Subscriber]

  /// The audience of `subscribers`.
  init(subscribers: [OperationEventHub.Subscriber]) {
    self.subscribers = subscribers
  }

  /// Delivers the event `makeEvent` builds to each subscriber still subscribed (building
  /// nothing when none is). Returns the wakes the subscribers asked for: run them once the
  /// publishing operation's lock is unlocked.
  func publish(_ makeEvent: () -> OperationEvent) -> EventWakes {
    var wakes = EventWakes()
    // Each subscriber builds the event it keeps: building one costs no more than copying it.
    // By index: a `for` loop over the array retained each subscriber. The audience's array
    // keeps each subscriber, and so its sink, alive through the call: borrowed, the sink is
    // not retained and released around every event.
    for index in subscribers.indices
    where subscribers[index].isSubscribed.load(ordering: .relaxed) {
      wakes.add(
        Unmanaged.passUnretained(subscribers[index])._withUnsafeGuaranteedRef {
          $0.sink.receive(makeEvent)
        })
    }
    return wakes
  }

  /// Delivers the public event for `event`, a lifecycle event of `operation` (borrowed, not
  /// retained) under `key`.
  func publish(
    _ event: OperationStateMachine.DecidedEvent, of operation: __shared Operation,
    key: CoalescingKey?
  ) -> EventWakes {
    publish {
      OperationEvent(
        kind: event.operationEventKind, operation: operation, key: key,
        callerCount: event.callerCount, duration: event.duration)
    }
  }
}
