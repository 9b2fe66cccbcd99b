import OperationCore

/// Hears a manager's events synchronously, on the thread that publishes each one, through the
/// manager's `package` event hub: a test sees each event the moment it is published, which an
/// `AsyncSequence` subscriber never can. The handler runs under the publishing operation's
/// lock: it may record or block for a bounded time, but must not call back into the operation
/// or its manager on that thread (hand such work to another thread). Ends its subscription
/// when released.
public final class EventTap: Sendable {
  private let hub: OperationEventHub
  private let id: OperationEventHub.SubscriptionID

  /// Calls `handler` with every later event of `manager`, on the publishing thread.
  public init(
    _ manager: OperationQueueManager, _ handler: @escaping @Sendable (OperationEvent) -> Void
  ) {
    hub = manager.events
    id = hub.subscribe(OperationEventHub.Subscriber(receive: handler, finish: {}))
  }

  deinit {
    hub.unsubscribe(id)
  }
}
