import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// One stream iterated by two tasks at once: neither traps, and each sees every event
/// published while it iterates.
@Suite struct EventStreamSharingTests {
  /// A task collecting the operations of `count` `finished` events from `iterator`.
  private static func finishedEvents(
    _ count: Int, from iterator: sending OperationEventStream.Iterator
  ) -> Task<[ObjectIdentifier], Never> {
    Task {
      var iterator = iterator
      var finished: [ObjectIdentifier] = []
      while finished.count < count, let event = await iterator.next() {
        if case .finished = event.kind { finished.append(event.operationID) }
      }
      return finished
    }
  }

  @Test func twoTasksIteratingOneStreamEachGetEveryEvent() async throws {
    let manager = OperationQueueManager(name: "events.two-tasks")
    let events = manager.makeEvents()
    let first = Self.finishedEvents(20, from: events.makeAsyncIterator())
    let second = Self.finishedEvents(20, from: events.makeAsyncIterator())
    defer {
      first.cancel()
      second.cancel()
    }
    let operations = (0..<20).map { ManualOperation(ending: .returning($0)) }
    for operation in operations { manager.enqueue(operation) }
    #expect(await becomesIdle(manager))

    let expected = Set(operations.map(ObjectIdentifier.init))
    let firstSeen = try #require(await completing { await first.value })
    let secondSeen = try #require(await completing { await second.value })
    #expect(Set(firstSeen) == expected)
    #expect(Set(secondSeen) == expected)
  }

  /// An iterator made after the first one is freed reads the stream's own subscription again,
  /// with what it buffered meanwhile. (A batch the first iterator had taken goes with it.)
  @Test func aLaterIteratorTakesOverWhatTheStreamBuffered() async throws {
    let manager = OperationQueueManager(name: "events.later")
    let events = manager.makeEvents()
    manager.enqueue(ManualOperation(ending: .returning(1)))
    #expect(await becomesIdle(manager))
    do {
      var iterator = events.makeAsyncIterator()
      #expect(await iterator.next()?.kind == .enqueued)
    }
    // Published while no iterator exists: kept for the next one.
    manager.enqueue(ManualOperation(ending: .returning(2)))
    #expect(await becomesIdle(manager))
    let rest = await completing { () async -> [OperationEvent.Kind] in
      var kinds: [OperationEvent.Kind] = []
      for await event in events {
        kinds.append(event.kind)
        if case .finished = event.kind { break }
      }
      return kinds
    }
    #expect(rest == [.enqueued, .started, .finished(.success)])
  }

  /// A stream whose manager is gone ends at once for an iterator that subscribes on its own.
  @Test func anIteratorOfItsOwnEndsOnceTheManagerIsGone() async throws {
    var manager: OperationQueueManager? = OperationQueueManager(name: "events.gone")
    let events = manager!.makeEvents()
    let holder = events.makeAsyncIterator()
    manager = nil
    let own = events.makeAsyncIterator()
    let reading = Task {
      var own = own
      return await own.next() == nil
    }
    #expect(await completing { await reading.value } == true)
    _ = holder
  }

  /// An iterator of its own made while the manager goes (its hub has finished, the hub itself
  /// still held) ends at once rather than waiting for events that never come.
  @Test func anIteratorOfItsOwnEndsOnceTheHubHasFinished() async throws {
    let manager = OperationQueueManager(name: "events.finished")
    let events = manager.makeEvents()
    let holder = events.makeAsyncIterator()
    manager.events.finish()
    let own = events.makeAsyncIterator()
    let reading = Task {
      var own = own
      return await own.next() == nil
    }
    #expect(await completing { await reading.value } == true)
    #expect(!manager.events.hasSubscribers)
    _ = holder
  }
}
