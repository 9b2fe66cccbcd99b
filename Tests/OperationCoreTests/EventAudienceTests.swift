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
    let earlyTap = EventLog(manager, hearing: .publishingThread) { early.record($0) }
    let first = ManualOperation(key: 1)
    manager.enqueue(first)
    #expect(await first.started.wait())
    let lateTap = EventLog(manager, hearing: .publishingThread) { late.record($0) }
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
      let tap = EventLog(manager, hearing: .publishingThread) { heard.record($0.kind) }
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

  /// An operation's terminal event is its last: from then on it holds no audience, so a
  /// finished operation that its caller keeps does not keep its subscribers.
  @Test func aFinishedOperationLetsGoOfItsAudience() async throws {
    let manager = OperationQueueManager(name: "audience.released")
    let operation = ManualOperation(key: 1)
    let sinkReleased: WeakReference<IgnoringSink>
    do {
      let sink = IgnoringSink()
      sinkReleased = WeakReference(sink)
      let subscription = manager.events.subscribe(OperationEventHub.Subscriber(sink))
      let task = Task { try await manager.perform(operation) }
      #expect(await operation.started.wait())
      operation.release(1)
      await expectValue(1, from: task)
      manager.events.unsubscribe(subscription)
    }
    #expect(sinkReleased.isFreed, "the finished operation still holds its audience")
    withExtendedLifetime(operation) {}
  }

  /// A sink's wake runs once the publisher has released its locks, the operation's and the
  /// manager's (a `joined` event is decided under both): a wake that takes them again must not
  /// deadlock. Every event here asks for a wake, which reads state behind both locks.
  @Test func wakesRunOutsideTheOperationsAndTheManagersLocks() async throws {
    let manager = OperationQueueManager(name: "audience.wakes")
    let operation = ManualOperation(key: 1)
    let woken = Recorder<OperationEvent.Kind>()
    let sink = WakeEverySink { kind in
      // Both take a lock that a publisher may hold while it decides an event.
      _ = manager.inFlightOperation(for: operation.coalescingKey!)
      _ = operation.isExecuting
      woken.record(kind)
    }
    let subscription = manager.events.subscribe(OperationEventHub.Subscriber(sink))
    defer { manager.events.unsubscribe(subscription) }

    let first = Task { try await manager.perform(operation) }
    #expect(await operation.started.wait())
    // The join runs on a thread of its own: a wake run under the manager's lock would deadlock
    // that thread alone, and the test would fail rather than hang.
    let joined = Recorder<Int>()
    Thread.detachNewThread {
      manager.enqueue(ManualOperation(key: 1)) { (result: Result<Int, any Error>) in
        joined.record((try? result.get()) ?? -1)
      }
    }
    guard await woken.wait(forCount: 3) else {
      Issue.record("a wake did not run: it waits for a lock its publisher still holds")
      return
    }
    operation.release(1)
    await expectValue(1, from: first)
    #expect(await joined.wait(forCount: 1))
    #expect(joined.values == [1])

    #expect(await woken.wait(forCount: 4))
    // Each event's wake runs once, on its publishing thread after that thread's locks are
    // released; wakes published on two threads (`enqueued` on the caller's, `started` on the
    // queue's) may run in either order.
    let kinds: [OperationEvent.Kind] = [.enqueued, .started, .joined, .finished(.success)]
    #expect(woken.values.count == kinds.count)
    for kind in kinds {
      #expect(woken.values.count { $0 == kind } == 1, "\(kind) woke \(woken.values)")
    }
  }
}

/// A sink that drops every event.
private final class IgnoringSink: EventSink {
  func receive(_ makeEvent: () -> OperationEvent) -> (any EventWake)? { nil }
  func finish() {}
}

/// A sink that asks for a wake on every event; the wake calls `onWake` with the event's kind.
private final class WakeEverySink: EventSink {
  private final class Wake: EventWake {
    private let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    func run() { body() }
  }

  private let onWake: @Sendable (OperationEvent.Kind) -> Void

  init(_ onWake: @escaping @Sendable (OperationEvent.Kind) -> Void) {
    self.onWake = onWake
  }

  func receive(_ makeEvent: () -> OperationEvent) -> (any EventWake)? {
    let kind = makeEvent().kind
    return Wake { [onWake] in onWake(kind) }
  }

  func finish() {}
}
