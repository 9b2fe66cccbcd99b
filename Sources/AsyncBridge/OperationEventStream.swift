import OperationCore
import Synchronization

/// An asynchronous sequence of a manager's lifecycle events: enqueued, joined, started,
/// finished (with success, failure, cancelled or timed out) and stalled.
///
/// Each stream has its own bounded buffer. When its subscriber falls behind by more than the
/// buffer size, the oldest unread events are dropped: a slow subscriber never blocks the queue or
/// the threads finishing operations. On Linux an iterating task of the default priority runs on
/// the same Dispatch queues as the operations, after those queued before it: under a burst of
/// short operations it may see only a fraction of the events. A `.high` priority task runs ahead
/// of them and keeps up, at a price: it takes a core from the operations (docs/PERFORMANCE.md,
/// `events_overhead`, gives both costs). The subscription ends when the iterating task is
/// cancelled or the stream and its iterator are freed; iteration ends when the manager is freed,
/// once the buffered events are handed out.
///
/// Iterate a stream from one task at a time. A second task that iterates it while the first
/// still holds its iterator is not refused: its iterator subscribes on its own, from the moment
/// it is made, so it gets every event published from then on, and none of those buffered for
/// the first.
///
/// Events of different operations interleave freely. One operation's events always come in
/// lifecycle order, `enqueued`, `joined`…, `started`, `joined`…, then exactly one `finished` (with
/// `stalled` and `retrying` possibly between `started` and `finished`), and each is published only
/// once what it reports is true (`enqueued` once the operation is in the queue). An operation that
/// settled before it was enqueued gets `enqueued` and then its `finished` at once.
public struct OperationEventStream: AsyncSequence, Sendable {
  /// The event type.
  public typealias Element = OperationEvent
  /// Iterating never throws.
  public typealias Failure = Never

  private let subscription: Subscription

  init(hub: OperationEventHub, bufferSize: Int) {
    subscription = Subscription(hub: hub, bufferSize: Swift.max(1, bufferSize))
  }

  /// Makes an iterator: one that reads the stream's own subscription (every event since
  /// `makeEvents(bufferSize:)`), or, while another iterator holds that, one with a subscription of
  /// its own, starting now.
  public func makeAsyncIterator() -> Iterator {
    Iterator(reading: subscription.startReading())
  }

  /// Hands out a stream's events, taking them from its buffer a batch at a time.
  public struct Iterator: AsyncIteratorProtocol {
    /// The subscription the events come from.
    @usableFromInline let reading: Subscription.Reading
    /// The current batch's events not handed out yet, newest first: each is moved out from
    /// the end, not copied.
    @usableFromInline var unread: [OperationEvent] = []

    fileprivate init(reading: Subscription.Reading) {
      self.reading = reading
    }

    /// The next event, waiting for one if none is buffered; nil once the manager is freed
    /// and every buffered event was handed out, or at once when the calling task is cancelled
    /// (which ends the subscription).
    public mutating func next() async -> OperationEvent? {
      await next(isolation: nil)
    }

    /// The next event, as ``next()`` describes, on the caller's actor (`for await` calls
    /// this). Inlinable: an event of the batch in hand is taken in the caller's code, with no
    /// asynchronous call (which costs more than the rest of handing an event out); only an
    /// empty hand calls the buffer.
    @inlinable
    public mutating func next(isolation actor: isolated (any Actor)?) async -> OperationEvent? {
      if !unread.isEmpty, !Task.isCancelled { return unread.removeLast() }
      return await nextBatch(isolation: actor)
    }

    /// The next event when the batch in hand is spent (or the task is cancelled): takes the
    /// next batch from the buffer, waiting for one.
    @usableFromInline
    mutating func nextBatch(isolation actor: isolated (any Actor)?) async -> OperationEvent? {
      if Task.isCancelled {
        reading.subscription.end()
        return nil
      }
      if let event = unread.popLast() { return event }
      // The spent batch (empty now) goes back to hold a later one.
      guard let batch = await reading.subscription.nextBatch(recycling: &unread) else {
        return nil
      }
      // Moved in, not copied: were a second reference to the batch alive, taking the first
      // event out would copy the whole batch, and the copy, too small to recycle, would make
      // the buffer grow its storage again.
      unread = consume batch
      // Reversed through a buffer pointer, which swaps events without retaining them.
      unread.withUnsafeMutableBufferPointer { $0.reverse() }
      return unread.popLast()
    }
  }
}

/// One subscription to a hub: its buffer, and its end when the stream and its iterators are
/// freed or the iterating task is cancelled.
@usableFromInline
final class Subscription: Sendable {
  /// An iterator's reading of a subscription. Reading the stream's own, it lets it go when the
  /// iterator (and every copy of it) is freed, for a later iterator to read.
  @usableFromInline
  final class Reading: Sendable {
    let subscription: Subscription
    private let isTheStreamsOwn: Bool

    fileprivate init(_ subscription: Subscription, isTheStreamsOwn: Bool) {
      self.subscription = subscription
      self.isTheStreamsOwn = isTheStreamsOwn
    }

    deinit { if isTheStreamsOwn { subscription.isIterated.store(false, ordering: .releasing) } }
  }

  let buffer: EventBuffer
  private weak let hub: OperationEventHub?
  /// Nil when the hub had gone before this subscription was made.
  private let id: OperationEventHub.SubscriptionID?
  private let bufferSize: Int
  /// Whether an iterator holds this subscription (see ``startReading()``).
  private let isIterated = Atomic<Bool>(false)

  /// Subscribes to `hub`; with no hub (the manager has been freed), the subscription is over
  /// before it begins.
  init(hub: OperationEventHub?, bufferSize: Int) {
    let buffer = EventBuffer(capacity: bufferSize)
    self.buffer = buffer
    self.hub = hub
    self.bufferSize = bufferSize
    id = hub?.subscribe(OperationEventHub.Subscriber(buffer))
    if id == nil { buffer.finish() }
  }

  deinit { end() }

  /// The subscription a new iterator reads: this one, unless another iterator holds it; then
  /// a new subscription to the same hub. Two tasks iterating at once never share one buffer,
  /// which hands each batch to one reader.
  func startReading() -> Reading {
    let (taken, _) = isIterated.compareExchange(
      expected: false, desired: true, ordering: .acquiringAndReleasing)
    if taken { return Reading(self, isTheStreamsOwn: true) }
    return Reading(Subscription(hub: hub, bufferSize: bufferSize), isTheStreamsOwn: false)
  }

  /// The next batch of events, at least one, waiting for it; nil once the stream has ended.
  func nextBatch(recycling spent: inout [OperationEvent]) async -> [OperationEvent]? {
    switch buffer.take(recycling: &spent) {
    case .batch(let events):
      return events
    case .end:
      return nil
    case .wait:
      return await withTaskCancellationHandler {
        await withCheckedContinuation { buffer.wait($0) }
      } onCancel: {
        end()
      }
    }
  }

  /// Stops the subscription: the hub forgets it, and a waiting consumer gets the end.
  func end() {
    buffer.terminate()
    if let id { hub?.unsubscribe(id) }
  }
}

extension OperationQueueManager {
  /// Starts a stream of the lifecycle events of the operations this manager admits from now
  /// on, each from its `enqueued` event to its terminal `finished` event: a stream never sees
  /// the tail of a lifecycle that began before it. (Operations admitted while nobody
  /// subscribes publish nothing, which is what makes events free when unused.)
  ///
  /// The stream ends when the manager is freed, at once: operations still in flight then
  /// run on, and their handlers are called, but their later events are not in the stream. To
  /// see every lifecycle to its end, keep the manager until `waitUntilIdle()` returns.
  ///
  /// - Parameter bufferSize: How many unread events the stream keeps; beyond that the oldest
  ///   are dropped. Defaults to 1,024; below 1 counts as 1.
  /// - Returns: The stream. Iterate it from one task at a time (see ``OperationEventStream``).
  public func makeEvents(bufferSize: Int = 1024) -> OperationEventStream {
    OperationEventStream(hub: events, bufferSize: bufferSize)
  }
}
