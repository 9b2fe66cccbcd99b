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
  private static func event(_ number: Int) -> OperationEvent {
    OperationEvent(
      kind: .started, operationName: "Numbered", key: nil, waiterCount: number, duration: nil,
      operationID: ObjectIdentifier(EventBufferTests.Marker.self))
  }

  private final class Marker {}

  /// Everything the buffer hands out until the end, batch by batch.
  private static func drain(_ buffer: EventBuffer) async -> [[Int]] {
    var batches: [[Int]] = []
    while true {
      switch buffer.take() {
      case .batch(let events):
        batches.append(events.map(\.waiterCount))
      case .end:
        return batches
      case .wait:
        guard let events = await withCheckedContinuation({ buffer.wait($0) }) else {
          return batches
        }
        batches.append(events.map(\.waiterCount))
      }
    }
  }

  @Test func unreadEventsComeInOneBatchInTheOrderReceived() async throws {
    let buffer = EventBuffer(capacity: 16)
    for number in 0..<10 { buffer.receive(Self.event(number)) }
    buffer.finish()

    #expect(await Self.drain(buffer) == [Array(0..<10)])
  }

  @Test(arguments: [1, 3, 16])
  func aFullBufferKeepsTheNewestEvents(capacity: Int) async throws {
    let buffer = EventBuffer(capacity: capacity)
    let count = capacity * 5 + 2
    for number in 0..<count { buffer.receive(Self.event(number)) }
    buffer.finish()

    #expect(await Self.drain(buffer) == [Array((count - capacity)..<count)])
  }

  @Test func aWaitingConsumerGetsTheNextEventAtOnce() async throws {
    let buffer = EventBuffer(capacity: 4)
    guard case .wait = buffer.take() else {
      Issue.record("an empty buffer did not ask the consumer to wait")
      return
    }
    let waiting = Task { await withCheckedContinuation { buffer.wait($0) }?.map(\.waiterCount) }
    // Whether the consumer parked before the event or not, the event reaches it.
    buffer.receive(Self.event(7))

    #expect(await completing { await waiting.value } == [7])
  }

  @Test func theEndReachesAWaitingConsumerAfterWhatWasBuffered() async throws {
    let buffer = EventBuffer(capacity: 4)
    let consumer = Task { await Self.drain(buffer) }
    buffer.receive(Self.event(1))
    buffer.receive(Self.event(2))
    buffer.finish()
    buffer.receive(Self.event(3))

    let batches = await completing { await consumer.value }
    // One batch or two, depending on when the consumer ran; never the event after the end.
    #expect(batches?.flatMap { $0 } == [1, 2])
  }

  @Test func terminatingEndsAWaitAndDropsLaterEvents() async throws {
    let buffer = EventBuffer(capacity: 4)
    let consumer = Task { await Self.drain(buffer) }
    buffer.receive(Self.event(1))
    buffer.terminate()
    buffer.receive(Self.event(2))

    let batches = await completing { await consumer.value }
    // The first event may have reached the consumer before the departure; nothing after it.
    #expect(batches.map { $0.flatMap { $0 }.allSatisfy { $0 == 1 } } == true)
    guard case .end = buffer.take() else {
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
    let published = AsyncCounter()
    for thread in 0..<threads {
      Thread.detachNewThread {
        for index in 0..<perThread { buffer.receive(Self.event(thread * perThread + index)) }
        _ = published.increment()
      }
    }
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
