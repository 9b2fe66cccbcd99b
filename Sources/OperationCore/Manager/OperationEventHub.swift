import Synchronization

/// Fans a manager's lifecycle events out to subscribers. Publishing is a single atomic load
/// when nobody subscribes.
///
/// Each subscription gets the next epoch. An operation claimed while anybody subscribes
/// records the epoch then (its audience), and its events go only to the subscriptions older
/// than that: a subscriber sees whole lifecycles, never the tail of one that began before it.
package final class OperationEventHub: Sendable {
  /// Identifies a subscription so it can end.
  package typealias SubscriptionID = UInt64

  /// One subscriber: where its events go, and how its stream ends.
  package struct Subscriber: Sendable {
    /// Buffers one event. Called under the publishing operation's lock: only buffer it.
    let receive: @Sendable (OperationEvent) -> Void
    /// Ends the subscriber's stream when the hub goes away.
    let finish: @Sendable () -> Void

    /// Creates a subscriber.
    package init(
      receive: @escaping @Sendable (OperationEvent) -> Void,
      finish: @escaping @Sendable () -> Void
    ) {
      self.receive = receive
      self.finish = finish
    }
  }

  private struct Subscribers {
    /// Replaced, never mutated in place, so a publisher copies it with one retain.
    var list: [(id: SubscriptionID, subscriber: Subscriber)] = []
    var nextID: SubscriptionID = 0
  }

  private let subscribers = Locked(Subscribers())
  private let subscriberCount = Atomic<Int>(0)
  /// The next subscription's identity; subscriptions with a smaller one are older.
  private let nextEpoch = Atomic<UInt64>(0)

  package init() {}

  /// Whether anybody listens; publishers skip building events when nobody does.
  package var hasSubscribers: Bool { subscriberCount.load(ordering: .relaxed) > 0 }

  /// Who would see an operation claimed now: the current epoch, or nil when nobody listens.
  var audience: UInt64? {
    guard hasSubscribers else { return nil }
    return nextEpoch.load(ordering: .acquiring)
  }

  /// Delivers every later event to `subscriber`, on the publishing thread.
  package func subscribe(_ subscriber: Subscriber) -> SubscriptionID {
    subscribers.withLock { state in
      let id = state.nextID
      state.nextID += 1
      nextEpoch.store(state.nextID, ordering: .releasing)
      state.list = state.list + [(id, subscriber)]
      subscriberCount.store(state.list.count, ordering: .relaxed)
      return id
    }
  }

  /// Ends a subscription; later events are not delivered to it.
  package func unsubscribe(_ id: SubscriptionID) {
    subscribers.withLock { state in
      state.list = state.list.filter { $0.id != id }
      subscriberCount.store(state.list.count, ordering: .relaxed)
    }
  }

  /// Delivers `event` to every subscription older than `audience`.
  package func publish(_ event: @autoclosure () -> OperationEvent, to audience: UInt64) {
    guard hasSubscribers else { return }
    let list = subscribers.withLock { $0.list }
    guard list.contains(where: { $0.id < audience }) else { return }
    let event = event()
    for entry in list where entry.id < audience { entry.subscriber.receive(event) }
  }

  /// Ends every subscription: their streams finish.
  package func finish() {
    let list = subscribers.withLock { state in
      defer {
        state.list = []
        subscriberCount.store(0, ordering: .relaxed)
      }
      return state.list
    }
    for entry in list { entry.subscriber.finish() }
  }
}
