import Synchronization

/// Fans a manager's lifecycle events out to subscribers. Publishing is a single atomic load
/// when nobody subscribes.
package final class OperationEventHub: Sendable {
  /// Identifies a subscription so it can end.
  package typealias SubscriptionID = UInt64

  private struct Subscribers {
    var handlers: [SubscriptionID: @Sendable (OperationEvent) -> Void] = [:]
    var nextID: SubscriptionID = 0
  }

  private let subscribers = Locked(Subscribers())
  private let subscriberCount = Atomic<Int>(0)

  package init() {}

  /// Whether anybody listens; publishers skip building events when nobody does.
  package var hasSubscribers: Bool { subscriberCount.load(ordering: .relaxed) > 0 }

  /// Calls `handler` with every later event, on the publishing thread. Never block in it.
  package func subscribe(_ handler: @escaping @Sendable (OperationEvent) -> Void)
    -> SubscriptionID
  {
    subscribers.withLock { state in
      let id = state.nextID
      state.nextID += 1
      state.handlers[id] = handler
      subscriberCount.store(state.handlers.count, ordering: .relaxed)
      return id
    }
  }

  /// Ends a subscription; later events are not delivered to it.
  package func unsubscribe(_ id: SubscriptionID) {
    subscribers.withLock { state in
      state.handlers[id] = nil
      subscriberCount.store(state.handlers.count, ordering: .relaxed)
    }
  }

  /// Delivers `event` to every subscriber, outside the lock.
  package func publish(_ event: @autoclosure () -> OperationEvent) {
    guard hasSubscribers else { return }
    let handlers = subscribers.withLock { Array($0.handlers.values) }
    guard !handlers.isEmpty else { return }
    let event = event()
    for handler in handlers { handler(event) }
  }
}
