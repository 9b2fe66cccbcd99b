import OperationCore

/// An asynchronous sequence of a manager's lifecycle events: enqueued, joined, started,
/// finished (with success, failure, cancelled or timed out) and stalled.
///
/// Each stream has its own bounded buffer. When a consumer falls behind by more than the
/// buffer size, the oldest unread events are dropped: a slow consumer never blocks the queue
/// or the threads finishing operations. The subscription ends when the iterating task is
/// cancelled or the stream is released.
///
/// Events are published by the threads that cause them, outside any lock, so events of
/// different operations interleave freely; one operation's events come in lifecycle order
/// (a finish or cancellation from another thread at the moment its queue starts it waits
/// for the `started` event).
public struct OperationEventStream: AsyncSequence, Sendable {
  /// The event type.
  public typealias Element = OperationEvent

  private let stream: AsyncStream<OperationEvent>

  init(hub: OperationEventHub, bufferSize: Int) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: OperationEvent.self, bufferingPolicy: .bufferingNewest(Swift.max(1, bufferSize)))
    let id = hub.subscribe { continuation.yield($0) }
    continuation.onTermination = { @Sendable _ in hub.unsubscribe(id) }
    self.stream = stream
  }

  /// Makes the iterator.
  public func makeAsyncIterator() -> AsyncStream<OperationEvent>.Iterator {
    stream.makeAsyncIterator()
  }
}

extension OperationQueueManager {
  /// Starts a stream of this manager's lifecycle events from now on.
  ///
  /// - Parameter bufferSize: How many unread events the stream keeps; beyond that the oldest
  ///   are dropped. Defaults to 1,024.
  /// - Returns: The stream. Iterate it from one task.
  public func makeEvents(bufferSize: Int = 1024) -> OperationEventStream {
    OperationEventStream(hub: events, bufferSize: bufferSize)
  }
}
