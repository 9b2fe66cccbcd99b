import LockedValue
import Synchronization

/// Fans a manager's lifecycle events out to subscribers. When nobody subscribes, admitting an
/// operation costs one atomic load, and its events nothing.
///
/// An operation claimed while anybody subscribes takes the subscribers of that moment as its
/// ``EventAudience``, and its events go to them alone: a subscriber sees whole lifecycles,
/// never the tail of one that began before it, and publishing an event takes no lock of the
/// hub's.
package final class OperationEventHub: Sendable {
  /// Identifies a subscription so it can end.
  package typealias SubscriptionID = UInt64

  /// One subscriber: where its events go, and whether it still listens.
  package final class Subscriber: Sendable {
    /// Where the events go: called directly, not through a closure, on every event.
    let sink: any EventSink
    /// Cleared when the subscription ends: operations claimed before still hold the
    /// subscriber in their audience, and skip it from then on.
    let isSubscribed = Atomic<Bool>(true)

    /// Creates a subscriber delivering to `sink`.
    package init(_ sink: any EventSink) {
      self.sink = sink
    }

    /// Creates a subscriber that calls `receive` with each event (under the publishing
    /// operation's lock: only record it) and `finish` when the hub goes away.
    package convenience init(
      receive: @escaping @Sendable (OperationEvent) -> Void,
      finish: @escaping @Sendable () -> Void
    ) {
      self.init(ClosureSink(receive: receive, finish: finish))
    }
  }

  private struct Subscribers {
    var list: [(id: SubscriptionID, subscriber: Subscriber)] = []
    /// The subscribers alone, rebuilt on every change, so a claim copies it with one retain.
    var audience = EventAudience(subscribers: [])
    var nextID: SubscriptionID = 0
    /// The manager has gone: a later subscriber's stream ends at once.
    var isFinished = false

    /// Rebuilds the audience after `list` changed, and publishes the new count.
    mutating func listChanged(count: borrowing Atomic<Int>) {
      audience = EventAudience(subscribers: list.map(\.subscriber))
      count.store(list.count, ordering: .relaxed)
    }
  }

  private let subscribers = Locked(Subscribers())
  private let subscriberCount = Atomic<Int>(0)

  /// A hub nobody subscribes to yet.
  package init() {}

  /// Whether anybody listens; claims skip looking up an audience when nobody does.
  package var hasSubscribers: Bool { subscriberCount.load(ordering: .relaxed) > 0 }

  /// Who sees the events of an operation claimed now: the current subscribers, or nil when
  /// nobody listens.
  var audience: EventAudience? {
    guard hasSubscribers else { return nil }
    return subscribers.withLock { $0.list.isEmpty ? nil : $0.audience }
  }

  /// Delivers the events of operations claimed from now on to `subscriber`, on the publishing
  /// thread. Once the hub has finished (its manager is gone), the subscriber is finished at
  /// once instead.
  package func subscribe(_ subscriber: Subscriber) -> SubscriptionID {
    let (id, isFinished) = subscribers.withLock { state in
      let id = state.nextID
      state.nextID += 1
      if state.isFinished { return (id, true) }
      state.list.append((id, subscriber))
      state.listChanged(count: subscriberCount)
      return (id, false)
    }
    if isFinished {
      subscriber.isSubscribed.store(false, ordering: .relaxed)
      subscriber.sink.finish()
    }
    return id
  }

  /// Ends a subscription; later events are not delivered to it.
  package func unsubscribe(_ id: SubscriptionID) {
    subscribers.withLock { state in
      state.list.removeAll { entry in
        guard entry.id == id else { return false }
        entry.subscriber.isSubscribed.store(false, ordering: .relaxed)
        return true
      }
      state.listChanged(count: subscriberCount)
    }
  }

  /// Ends every subscription: their streams finish.
  package func finish() {
    let list = subscribers.withLock { state in
      defer {
        state.list = []
        state.isFinished = true
        state.listChanged(count: subscriberCount)
      }
      return state.list
    }
    for entry in list {
      entry.subscriber.isSubscribed.store(false, ordering: .relaxed)
      entry.subscriber.sink.finish()
    }
  }
}
