import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// One operation's events reach a subscriber in lifecycle order even when the thread that
/// publishes one of them is held up right before it does (issue 11, defect 2). A synchronous
/// subscriber holds that thread inside its own call, at most a second, while another thread
/// goes on; it records events in the order it is handed them. An implementation that orders
/// publication makes the other thread wait instead, and the order stays right.
@Suite struct EventOrderTests {
  @Test func aJoinWhosePublisherIsHeldUpIsNotReportedAfterTheFinish() async throws {
    let manager = OperationQueueManager(name: "edges.order.join")
    let working = ManualOperation(key: 1)
    let workingID = ObjectIdentifier(working)
    let seen = Recorder<OperationEvent.Kind>()
    let joinPublishing = Gate()
    let finishedSeen = Gate()
    let tap = EventTap(manager) { event in
      guard event.operationID == workingID else { return }
      if event.kind == .joined {
        joinPublishing.open()
        _ = finishedSeen.block(timeout: .seconds(1))
      }
      seen.record(event.kind)
      if case .finished = event.kind { finishedSeen.open() }
    }
    let handlers = AsyncCounter()
    manager.enqueue(working) { _ in handlers.increment() }
    #expect(await working.started.wait())
    let joinReturned = Gate()
    Thread.detachNewThread {
      manager.enqueue(ManualOperation(key: 1)) { _ in handlers.increment() }
      joinReturned.open()
    }
    #expect(await joinPublishing.wait(timeout: .seconds(5)))
    // The request has joined; the work finishes from another thread meanwhile.
    Thread.detachNewThread { working.release(1) }
    #expect(await joinReturned.wait(timeout: .seconds(5)))
    #expect(await handlers.wait(untilAtLeast: 2, timeout: .seconds(5)))
    #expect(await becomesIdle(manager, within: .seconds(5)))
    let kinds = seen.values
    #expect(EventInvariants.lifecycleProblem(kinds) == nil, "\(kinds)")
    withExtendedLifetime(tap) {}
  }

  @Test func aFirstEnqueueWhosePublisherIsHeldUpIsNotReportedAfterAJoin() async throws {
    let manager = OperationQueueManager(name: "edges.order.first")
    manager.isSuspended = true
    let first = ManualOperation(key: 1, ending: .returning(1))
    let firstID = ObjectIdentifier(first)
    let seen = Recorder<OperationEvent.Kind>()
    let enqueuedPublishing = Gate()
    let joinedSeen = Gate()
    let tap = EventTap(manager) { event in
      guard event.operationID == firstID else { return }
      if event.kind == .enqueued {
        enqueuedPublishing.open()
        _ = joinedSeen.block(timeout: .seconds(1))
      }
      seen.record(event.kind)
      if event.kind == .joined { joinedSeen.open() }
    }
    let handlers = AsyncCounter()
    let firstReturned = Gate()
    Thread.detachNewThread {
      manager.enqueue(first) { _ in handlers.increment() }
      firstReturned.open()
    }
    #expect(await enqueuedPublishing.wait(timeout: .seconds(5)))
    // The first request is admitted; an identical one arrives from another thread meanwhile.
    let secondReturned = Gate()
    Thread.detachNewThread {
      manager.enqueue(ManualOperation(key: 1, ending: .returning(2))) { _ in handlers.increment() }
      secondReturned.open()
    }
    #expect(await firstReturned.wait(timeout: .seconds(5)))
    #expect(await secondReturned.wait(timeout: .seconds(5)))
    manager.isSuspended = false
    #expect(await handlers.wait(untilAtLeast: 2, timeout: .seconds(5)))
    #expect(await becomesIdle(manager, within: .seconds(5)))
    let kinds = seen.values
    #expect(EventInvariants.lifecycleProblem(kinds) == nil, "\(kinds)")
    withExtendedLifetime(tap) {}
  }
}
