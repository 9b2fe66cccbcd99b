import Foundation
import OperationCore
import TestSupport
import Testing

/// Who hears an operation's events: the subscribers of its manager when the manager admitted
/// it, less those whose subscription has ended since. Invariants: a subscriber never hears part
/// of a lifecycle (nothing of an operation admitted before it subscribed), and nothing reaches
/// a subscription once it has ended, even from operations admitted while it was open.
@Suite struct EventAudienceTests {
  @Test func aLaterSubscriberHearsNothingOfOperationsAdmittedBeforeIt() async throws {
    let manager = OperationQueueManager(name: "audience.later")
    let early = Recorder<OperationEvent>()
    let late = Recorder<OperationEvent>()
    let earlyTap = EventTap(manager) { early.record($0) }
    let first = ManualOperation(key: 1)
    manager.enqueue(first)
    #expect(await first.started.wait())
    let lateTap = EventTap(manager) { late.record($0) }
    let second = ManualOperation(key: 2)
    manager.enqueue(second)
    #expect(await second.started.wait())
    first.release(1)
    second.release(2)

    // Each hears every event of each operation it hears of: three apiece.
    #expect(await early.wait(forCount: 6))
    #expect(await late.wait(forCount: 3))
    #expect(await becomesIdle(manager))
    withExtendedLifetime((earlyTap, lateTap)) {}
    #expect(
      Set(early.values.map(\.operationID)) == [ObjectIdentifier(first), ObjectIdentifier(second)])
    #expect(late.values.map(\.operationID) == Array(repeating: ObjectIdentifier(second), count: 3))
    #expect(late.values.map(\.kind) == [.enqueued, .started, .finished(.success)])
  }

  @Test func anEndedSubscriptionHearsNothingMoreFromOperationsAdmittedBefore() async throws {
    let manager = OperationQueueManager(name: "audience.ended")
    let heard = Recorder<OperationEvent.Kind>()
    let operation = ManualOperation(key: 1)
    let task: Task<Int, any Error>
    do {
      let tap = EventTap(manager) { heard.record($0.kind) }
      // Admitted while the tap listens: the tap is in the operation's audience.
      task = Task { try await manager.perform(operation) }
      #expect(await operation.started.wait())
      #expect(await heard.wait(forCount: 2))
      withExtendedLifetime(tap) {}
    }
    operation.release(1)
    // The terminal event goes out before the waiters are resumed.
    await expectValue(1, from: task)

    #expect(heard.values == [.enqueued, .started])
  }
}
