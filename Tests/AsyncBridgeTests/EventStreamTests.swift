import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// `manager.makeEvents()`: the lifecycle event stream.
@Suite struct EventStreamTests {
  @Test func oneOperationYieldsEnqueuedStartedFinishedInOrder() async throws {
    let manager = OperationQueueManager(name: "events.order")
    let events = manager.makeEvents()
    let operation = ManualOperation(key: 1)
    let task = Task { try await manager.perform(operation) }
    #expect(await operation.started.wait())
    operation.release(1)
    await expectValue(1, from: task)

    let received =
      await completing { () async -> [OperationEvent] in
        var received: [OperationEvent] = []
        for await event in events {
          received.append(event)
          if received.count == 3 { break }
        }
        return received
      } ?? []
    #expect(received.map(\.kind) == [.enqueued, .started, .finished(.success)])
    #expect(received.allSatisfy { $0.operationID == ObjectIdentifier(operation) })
    #expect(received.allSatisfy { $0.key == operation.coalescingKey })
    #expect(received.allSatisfy { $0.operationName == "Manual[1]" })
    // Every event counts the one waiting caller, `started` included.
    #expect(received.map(\.callerCount) == [1, 1, 1])
    #expect(received.last?.duration != nil)
  }

  /// A printed event reads as a log line, its kind by case name (not by the nested types'
  /// qualified names).
  @Test func anEventPrintsAsOneShortLine() {
    let owner = NSObject()
    let event = OperationEvent(
      kind: .finished(.success), operationName: "FetchAvatar", key: nil, callerCount: 2,
      duration: .seconds(1), operationID: ObjectIdentifier(owner))

    #expect(event.description == "finished(success) FetchAvatar waiters=2 after 1.0 seconds")
    #expect(
      OperationEvent.Kind.retrying(attempt: 1, delay: .milliseconds(500)).description
        == "retrying(attempt: 1, delay: 0.5 seconds)")
    #expect(OperationEvent.Kind.finished(.timedOut).description == "finished(timedOut)")
  }

  @Test func joiningYieldsJoinedWithTheWaiterCount() async throws {
    let manager = OperationQueueManager(name: "events.joined")
    manager.isSuspended = true
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    var tasks = [Task { try await manager.perform(operation) }]
    #expect(await log.wait(for: .enqueued, of: operation))
    tasks.append(Task { try await manager.perform(ManualOperation(key: 1)) })
    #expect(await log.wait(for: .joined, of: operation, count: 1))
    tasks.append(Task { try await manager.perform(ManualOperation(key: 1)) })
    #expect(await log.wait(for: .joined, of: operation, count: 2))
    #expect(log.events(.joined, of: operation).map(\.callerCount) == [2, 3])
    #expect(log.events(.joined, of: operation).allSatisfy { $0.key == operation.coalescingKey })

    manager.isSuspended = false
    #expect(await operation.started.wait())
    operation.release(1)
    for task in tasks { await expectValue(1, from: task) }
    #expect(await log.wait(for: .finished(.success), of: operation))
    #expect(log.events(.started, of: operation).first?.callerCount == 3)
    #expect(log.events(.finished(.success), of: operation).first?.callerCount == 3)
  }

  @Test func cancellationYieldsFinishedCancelled() async throws {
    let manager = OperationQueueManager(name: "events.cancelled")
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let task = Task { try await manager.perform(operation) }
    #expect(await operation.started.wait())
    task.cancel()
    await expectCancellation(of: task)
    #expect(await log.wait(for: .finished(.cancelled), of: operation))
    #expect(log.kinds(of: operation) == [.enqueued, .started, .finished(.cancelled)])
  }

  @Test func timeoutYieldsFinishedTimedOut() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "events.timedOut", clock: clock)
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    operation.timeout = .milliseconds(50)
    let task = Task { try await manager.perform(operation) }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .milliseconds(50))
    let outcome = await result(of: task)
    #expect(throws: OperationTimeoutError.self) { try outcome?.get() }
    #expect(await log.wait(for: .finished(.timedOut), of: operation))
    let finished = log.events(.finished(.timedOut), of: operation).first
    // Measured on the manager's clock: exactly the timeout.
    #expect(finished.flatMap(\.duration) == .milliseconds(50))
    #expect(await becomesIdle(manager))
  }

  @Test func longRunningOperationYieldsStalled() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "events.stalled", clock: clock)
    manager.stallThreshold = .milliseconds(50)
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let quick = ManualOperation(ending: .returning(2))
    let task = Task { try await manager.perform(operation) }
    #expect(try await withDeadline { try await manager.perform(quick) } == 2)
    // The running one's stall check is armed at its start; the quick one's was taken out
    // when it finished.
    #expect(await operation.started.wait())
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .milliseconds(50))
    #expect(await log.wait(for: .stalled, of: operation))
    #expect(log.events(.stalled, of: operation).first?.duration == .milliseconds(50))
    operation.release(1)
    await expectValue(1, from: task)
    #expect(await log.flush(manager))
    #expect(log.events(.stalled, of: operation).count == 1)
    #expect(log.events(.stalled, of: quick).isEmpty)
  }

  @Test func clearedStallThresholdStopsStalledEvents() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "events.stall-cleared", clock: clock)
    manager.stallThreshold = .milliseconds(5)
    manager.stallThreshold = nil
    let log = EventLog(manager)
    let operation = ManualOperation(key: 1)
    let task = Task { try await manager.perform(operation) }
    #expect(await operation.started.wait())
    // Ten times the cleared threshold: a stall check scheduled at the start would have run.
    #expect(clock.pendingTimers == 0)
    await clock.advance(by: .milliseconds(50))
    operation.release(1)
    await expectValue(1, from: task)
    #expect(await log.flush(manager))
    #expect(manager.stallThreshold == nil)
    #expect(log.events(.stalled, of: operation).isEmpty)
  }

  @Test func slowSubscriberNeverBlocksTheQueue() async throws {
    let manager = OperationQueueManager(name: "events.slow", maxConcurrentOperationCount: 4)
    let events = manager.makeEvents(bufferSize: 4)
    let count = 1_000
    for value in 0..<count { manager.enqueue(ManualOperation(ending: .returning(value))) }
    #expect(await becomesIdle(manager))

    // Nobody iterated while 3,000 events were published. A marker shows where they end.
    let marker = ManualOperation(key: 1)
    manager.enqueue(marker)
    let buffered = await completing { () async -> Int in
      var seen = 0
      for await event in events {
        seen += 1
        // By key, not identity: a freed operation's address may be reused by the marker.
        if event.key == marker.coalescingKey { return seen }
      }
      return -1
    }
    guard let buffered else {
      Issue.record("the marker's event never arrived")
      return
    }
    #expect(buffered >= 1)
    #expect(buffered <= 4, "\(buffered) events were buffered for a buffer of 4")
    marker.cancel()
    #expect(await becomesIdle(manager))
  }

  @Test func freeingTheStreamEndsTheSubscription() async throws {
    let manager = OperationQueueManager(name: "events.release")
    do {
      let events = manager.makeEvents()
      #expect(manager.events.hasSubscribers)
      _ = events
    }
    #expect(await eventually { !manager.events.hasSubscribers })

    let events = manager.makeEvents()
    let iterating = Task {
      for await _ in events {}
    }
    #expect(manager.events.hasSubscribers)
    iterating.cancel()
    #expect(await value(of: iterating) != nil)
    #expect(await eventually { !manager.events.hasSubscribers })
  }
}
