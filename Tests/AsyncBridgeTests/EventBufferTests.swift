import Foundation
import OperationCore
import TestSupport
import Testing

@testable import AsyncBridge

/// The buffer behind ``OperationEventStream``, on its own. Its invariants: every event a
/// consumer gets was received, once, in the order received; with nothing dropped, every
/// received event arrives; when full, the oldest unread events go first; the consumer's wait
/// ends with the next event, with the end of the hub, or with the consumer's departure.
@Suite struct EventBufferTests {
  /// An event whose waiter count numbers it.
  static func numbered(_ number: Int) -> OperationEvent {
    OperationEvent(
      kind: .started, operationName: "Numbered", key: nil, callerCount: number, duration: nil,
      operationID: ObjectIdentifier(Marker.self))
  }

  private final class Marker {}

  /// Everything the buffer hands out until the end, batch by batch, each spent batch going
  /// back for reuse as the stream's iterator does. Cancelling the draining task makes it leave,
  /// as the stream's consumer does.
  static func drain(_ buffer: EventBuffer) async -> [[Int]] {
    var batches: [[Int]] = []
    var spent: [OperationEvent] = []
    while true {
      switch buffer.take(recycling: &spent) {
      case .batch(var events):
        batches.append(events.map(\.callerCount))
        events.removeAll(keepingCapacity: true)
        spent = events
      case .end:
        return batches
      case .wait:
        let events = await withTaskCancellationHandler {
          await withCheckedContinuation { buffer.wait($0) }
        } onCancel: {
          buffer.terminate()
        }
        guard let events else { return batches }
        batches.append(events.map(\.callerCount))
      }
    }
  }

  /// Starts `publishers` threads, each receiving `perPublisher` numbered events (publisher
  /// `p`'s are numbered from `p * perPublisher`) and running the wakes; each counts itself in
  /// the returned counter when done.
  static func publishOnThreads(
    to buffer: EventBuffer, publishers: Int, perPublisher: Int
  ) -> AsyncCounter {
    let published = AsyncCounter()
    for publisher in 0..<publishers {
      Thread.detachNewThread {
        for index in 0..<perPublisher {
          buffer.receive { numbered(publisher * perPublisher + index) }?.run()
        }
        _ = published.increment()
      }
    }
    return published
  }

  @Test func unreadEventsComeInOneBatchInTheOrderReceived() async throws {
    let buffer = EventBuffer(capacity: 16)
    for number in 0..<10 { buffer.receive { Self.numbered(number) }?.run() }
    buffer.finish()

    #expect(await Self.drain(buffer) == [Array(0..<10)])
  }

  @Test(arguments: [1, 3, 16])
  func aFullBufferKeepsTheNewestEvents(capacity: Int) async throws {
    let buffer = EventBuffer(capacity: capacity)
    let count = capacity * 5 + 2
    for number in 0..<count { buffer.receive { Self.numbered(number) }?.run() }
    buffer.finish()

    #expect(await Self.drain(buffer) == [Array((count - capacity)..<count)])
  }

  /// The ring wraps at a different place each round, and each batch's storage comes back for
  /// a later one: order and the newest-kept window hold throughout.
  @Test func batchesStayInOrderAcrossWrapsAndRecycledStorage() throws {
    let capacity = 4
    let buffer = EventBuffer(capacity: capacity)
    var next = 0
    var spent: [OperationEvent] = []
    for published in [10, 3, 11, 4, 1, 9] {
      for _ in 0..<published {
        buffer.receive { Self.numbered(next) }?.run()
        next += 1
      }
      guard case .batch(var events) = buffer.take(recycling: &spent) else {
        Issue.record("nothing taken after \(published) events")
        return
      }
      #expect(events.map(\.callerCount) == Array((next - min(published, capacity))..<next))
      events.removeAll(keepingCapacity: true)
      spent = events
    }
  }

  @Test func aWaitingConsumerGetsTheNextEventAtOnce() async throws {
    let buffer = EventBuffer(capacity: 4)
    var spent: [OperationEvent] = []
    guard case .wait = buffer.take(recycling: &spent) else {
      Issue.record("an empty buffer did not ask the consumer to wait")
      return
    }
    let waiting = Task { await withCheckedContinuation { buffer.wait($0) }?.map(\.callerCount) }
    // Whether the consumer parked before the event or not, the event reaches it.
    buffer.receive { Self.numbered(7) }?.run()

    #expect(await completing { await waiting.value } == [7])
  }

  /// A publisher never resumes the consumer itself: it gets a wake, only when the consumer
  /// waits and only once, and the wake hands over everything published until it runs.
  @Test func aWaitingConsumerIsWokenOncePerBatchByTheWakeThePublisherRuns() async throws {
    let buffer = EventBuffer(capacity: 8)
    let parked = Gate()
    let consumer = Task {
      await withCheckedContinuation { continuation in
        buffer.wait(continuation)
        parked.open()
      }?.map(\.callerCount)
    }
    #expect(await parked.wait())

    let wake = buffer.receive { Self.numbered(1) }
    #expect(wake != nil, "a waiting consumer asked for no wake")
    #expect(buffer.receive { Self.numbered(2) } == nil, "a second wake for the same batch")
    wake?.run()

    #expect(await completing { await consumer.value } == [1, 2])
    var spent: [OperationEvent] = []
    guard case .wait = buffer.take(recycling: &spent) else {
      Issue.record("the wake left events behind")
      return
    }
    #expect(buffer.receive { Self.numbered(3) } == nil, "a wake for a consumer that is not waiting")
  }

  @Test func theEndReachesAWaitingConsumerAfterWhatWasBuffered() async throws {
    let buffer = EventBuffer(capacity: 4)
    let consumer = Task { await Self.drain(buffer) }
    buffer.receive { Self.numbered(1) }?.run()
    buffer.receive { Self.numbered(2) }?.run()
    buffer.finish()
    buffer.receive { Self.numbered(3) }?.run()

    let batches = await completing { await consumer.value }
    // One batch or two, depending on when the consumer ran; never the event after the end.
    #expect(batches?.flatMap { $0 } == [1, 2])
  }

  @Test func terminatingEndsAWaitAndDropsLaterEvents() async throws {
    let buffer = EventBuffer(capacity: 4)
    let consumer = Task { await Self.drain(buffer) }
    buffer.receive { Self.numbered(1) }?.run()
    buffer.terminate()
    buffer.receive { Self.numbered(2) }?.run()

    let batches = await completing { await consumer.value }
    // The first event may have reached the consumer before the departure; nothing after it.
    #expect(batches.map { $0.flatMap { $0 }.allSatisfy { $0 == 1 } } == true)
    var spent: [OperationEvent] = []
    guard case .end = buffer.take(recycling: &spent) else {
      Issue.record("a terminated buffer handed out more")
      return
    }
  }

  /// Several publishing threads and one consumer: with room for everything, every event
  /// arrives exactly once, and each thread's events in the order it published them.
  @Test func concurrentPublishersLoseNothingAndKeepEachOnesOrder() async throws {
    let threads = 4
    let perThread = StressBudget.isThreadSanitized ? 5_000 : 20_000
    let buffer = EventBuffer(capacity: threads * perThread)
    let consumer = Task { await Self.drain(buffer) }
    let published = Self.publishOnThreads(
      to: buffer, publishers: threads, perPublisher: perThread)
    #expect(await published.wait(untilAtLeast: threads, timeout: .seconds(30)))
    buffer.finish()

    let received = await completing { await consumer.value }?.flatMap { $0 } ?? []
    #expect(received.count == threads * perThread)
    #expect(Set(received).count == received.count, "an event arrived twice")
    for thread in 0..<threads {
      let own = received.filter { $0 / perThread == thread }
      #expect(own == own.sorted(), "thread \(thread)'s events out of order")
    }
  }
}
