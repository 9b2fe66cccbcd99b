import OperationCore

/// An asynchronous sequence of a manager's lifecycle events: enqueued, joined, started,
/// finished (with success, failure, cancelled or timed out) and stalled.
///
/// Each stream has its own bounded buffer. When a consumer falls behind by more than the
/// buffer size, the oldest unread events are dropped: a slow consumer never blocks the queue
/// or the threads finishing operations. The subscription ends when the iterating task is
/// cancelled or the stream is released; iteration ends when the manager is released.
///
/// Events of different operations interleave freely. One operation's events always come in
/// lifecycle order, `enqueued`, `joined`…, `started`, `joined`…, then exactly one `finished`
/// (with `stalled` and `retrying` possibly between `started` and `finished`), and each is published only once
/// what it reports is true (`enqueued` once the operation is in the queue). An operation that
/// settled before it was enqueued gets `enqueued` and then its `finished` at once.
public struct OperationEventStream: AsyncSequence, Sendable {
  /// The event type.
  public typealias Element = OperationEvent

  private let stream: AsyncStream<OperationEvent>

  init(hub: OperationEventHub, bufferSize: Int) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: OperationEvent.self, bufferingPolicy: .bufferingNewest(Swift.max(1, bufferSize)))
    let id = hub.subscribe(
      OperationEventHub.Subscriber(
        receive: { continuation.yield($0) }, finish: { continuation.finish() }))
    continuation.onTermination = { @Sendable [weak hub] _ in hub?.unsubscribe(id) }
    self.stream = stream
  }

  /// Makes the iterator.
  public func makeAsyncIterator() -> AsyncStream<OperationEvent>.Iterator {
    stream.makeAsyncIterator()
  }
}

extension OperationQueueManager {
  /// Starts a stream of the lifecycle events of the operations this manager admits from now
  /// on, each from its `enqueued` event to its terminal `finished` event: a stream never sees
  /// half a lifecycle. (Operations admitted while nobody subscribes publish nothing, which is
  /// what makes events free when unused.)
  ///
  /// - Parameter bufferSize: How many unread events the stream keeps; beyond that the oldest
  ///   are dropped. Defaults to 1,024.
  /// - Returns: The stream. Iterate it from one task.
  public func makeEvents(bufferSize: Int = 1024) -> OperationEventStream {
    OperationEventStream(hub: events, bufferSize: bufferSize)
  }
}
