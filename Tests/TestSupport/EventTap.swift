import OperationCore

/// Hears a manager's events synchronously, on the thread that publishes each one, through the
/// manager's `package` event hub: a test can act inside the window right after an event is
/// published (and before the publisher's next step), which an `AsyncSequence` subscriber
/// never can. Ends its subscription when released.
public final class EventTap: Sendable {
  private let hub: OperationEventHub
  private let id: OperationEventHub.SubscriptionID

  /// Calls `handler` with every later event of `manager`, on the publishing thread.
  public init(
    _ manager: OperationQueueManager, _ handler: @escaping @Sendable (OperationEvent) -> Void
  ) {
    hub = manager.events
    id = hub.subscribe(handler)
  }

  deinit {
    hub.unsubscribe(id)
  }
}
