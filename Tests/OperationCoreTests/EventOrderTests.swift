import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// One operation's events reach a subscriber in lifecycle order even when the thread that
/// publishes one of them is held up right before it does. A synchronous
/// subscriber holds that thread inside its own call, at most a second, while another thread
/// goes on; it records events in the order it is handed them. An implementation that orders
/// publication makes the other thread wait instead, and the order stays right.
@Suite struct EventOrderTests {
  @Test func aJoinWhosePublisherIsHeldUpIsNotReportedAfterTheFinish() async throws {
    let manager = OperationQueueManager(name: "edges.order.join")
    let working = ManualOperation(key: 1)
    let tap = HoldingTap(manager, working, holding: .joined) {
      if case .finished = $0 { true } else { false }
    }
    let handlers = AsyncCounter()
    manager.enqueue(working) { _ in handlers.increment() }
    #expect(await working.started.wait())
    let joinReturned = Gate()
    Thread.detachNewThread {
      manager.enqueue(ManualOperation(key: 1)) { _ in handlers.increment() }
      joinReturned.open()
    }
    #expect(await tap.holding.wait(timeout: .seconds(30)))
    // The request has joined; the work finishes from another thread meanwhile.
    Thread.detachNewThread { working.release(1) }
    #expect(await joinReturned.wait(timeout: .seconds(30)))
    #expect(await handlers.wait(untilAtLeast: 2, timeout: .seconds(30)))
    #expect(await becomesIdle(manager, within: .seconds(30)))
    let kinds = tap.seen.values
    #expect(EventInvariants.lifecycleProblem(kinds) == nil, "\(kinds)")
  }

  @Test func aFirstEnqueueWhosePublisherIsHeldUpIsNotReportedAfterAJoin() async throws {
    let manager = OperationQueueManager(name: "edges.order.first")
    manager.isSuspended = true
    let first = ManualOperation(key: 1, ending: .returning(1))
    let tap = HoldingTap(manager, first, holding: .enqueued) { $0 == .joined }
    let handlers = AsyncCounter()
    let firstReturned = Gate()
    Thread.detachNewThread {
      manager.enqueue(first) { _ in handlers.increment() }
      firstReturned.open()
    }
    #expect(await tap.holding.wait(timeout: .seconds(30)))
    // The first request is admitted; an identical one arrives from another thread meanwhile.
    let secondReturned = Gate()
    Thread.detachNewThread {
      manager.enqueue(ManualOperation(key: 1, ending: .returning(2))) { _ in handlers.increment() }
      secondReturned.open()
    }
    #expect(await firstReturned.wait(timeout: .seconds(30)))
    #expect(await secondReturned.wait(timeout: .seconds(30)))
    manager.isSuspended = false
    #expect(await handlers.wait(untilAtLeast: 2, timeout: .seconds(30)))
    #expect(await becomesIdle(manager, within: .seconds(30)))
    let kinds = tap.seen.values
    #expect(EventInvariants.lifecycleProblem(kinds) == nil, "\(kinds)")
  }

  /// Holds the thread that publishes `held` for one operation inside the event (until an event
  /// satisfying `until` is handed over, at most a second), and records that operation's events
  /// in the order they are handed over.
  struct HoldingTap {
    /// The operation's event kinds, in the order they were handed over.
    let seen = Recorder<OperationEvent.Kind>()
    /// Opened when the held event's publisher is held.
    let holding = Gate()
    private let tap: EventLog

    init(
      _ manager: OperationQueueManager, _ operation: Operation, holding held: OperationEvent.Kind,
      until release: @escaping @Sendable (OperationEvent.Kind) -> Bool
    ) {
      let id = ObjectIdentifier(operation)
      let (seen, holding, released) = (seen, holding, Gate())
      tap = EventLog(manager, hearing: .publishingThread) { event in
        guard event.operationID == id else { return }
        if event.kind == held {
          holding.open()
          _ = released.block(timeout: .seconds(1))
        }
        seen.record(event.kind)
        if release(event.kind) { released.open() }
      }
    }
  }
}
