import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Whose task's context the work sees: a `run { }` closure its caller's, a shared
/// `run(key:) { }` closure its starter's (never a joiner's), an operation's work nobody's.
@Suite struct CallerContextTests {
  /// A trace identifier, as a tracing library keeps one.
  enum Trace {
    @TaskLocal static var requestID = "none"
  }

  /// What a closure saw: the trace identifier and its task's priority.
  struct Seen: Equatable, Sendable {
    var requestID: String
    var priority: UInt8

    static var now: Seen {
      Seen(requestID: Trace.requestID, priority: Task.currentPriority.rawValue)
    }
  }

  @Test func aRunsClosureSeesItsCallersTaskLocalValues() async throws {
    let manager = OperationQueueManager(name: "context.run.taskLocal")
    let seen = try await Trace.$requestID.withValue("req-1") {
      try await withDeadline { try await manager.run { Trace.requestID } }
    }
    #expect(seen == "req-1")
    #expect(await becomesIdle(manager))
  }

  /// What a closure saw, recorded where the test reads it without awaiting the caller's task:
  /// awaiting that task from the test's more urgent one would escalate it, and with it the
  /// work it waits for.
  final class Sighting: Sendable {
    private let seen = Locked<Seen?>(nil)
    /// Opens when the closure has recorded what it saw.
    let recorded = Gate()

    /// Records what the calling task sees.
    func record() {
      seen.withLock { $0 = Seen.now }
      recorded.open()
    }

    /// What the closure saw; nil until it recorded it.
    var value: Seen? { seen.withLock { $0 } }
  }

  @Test func aRunsClosureRunsAtItsCallersPriority() async throws {
    let manager = OperationQueueManager(name: "context.run.priority")
    let sighting = Sighting()
    let caller = Task(priority: .low) {
      try await manager.run { () async throws -> Int in
        sighting.record()
        return 1
      }
    }
    #expect(await sighting.recorded.wait())
    #expect(sighting.value?.priority == TaskPriority.low.rawValue)
    await expectValue(1, from: caller)
    #expect(await becomesIdle(manager))
  }

  /// A closure that suspends keeps its caller's context after it resumes (its later jobs run
  /// elsewhere, in the same task).
  @Test func aRunsClosureKeepsItsCallersContextAcrossSuspensions() async throws {
    let manager = OperationQueueManager(name: "context.run.suspending")
    let sighting = Sighting()
    let caller = Task(priority: .low) {
      try await Trace.$requestID.withValue("req-2") {
        try await manager.run { () async throws -> Int in
          try await Task.sleep(for: .milliseconds(1))
          await Task.yield()
          sighting.record()
          return 1
        }
      }
    }
    #expect(await sighting.recorded.wait())
    #expect(sighting.value == Seen(requestID: "req-2", priority: TaskPriority.low.rawValue))
    await expectValue(1, from: caller)
    #expect(await becomesIdle(manager))
  }

  @Test func aSharedRunSeesItsStartersContextAndAJoinersClosureNeverRuns() async throws {
    let manager = OperationQueueManager(name: "context.runKey.starter")
    manager.isSuspended = true
    let log = EventLog(manager)
    let sighting = Sighting()
    let starter = Task(priority: .low) {
      try await Trace.$requestID.withValue("starter") {
        try await manager.run(key: "shared") { () async throws -> Int in
          sighting.record()
          return 1
        }
      }
    }
    #expect(await log.wait { $0.kind == .enqueued })
    let joinerRan = Gate()
    let joiner = Task(priority: .low) {
      try await Trace.$requestID.withValue("joiner") {
        try await manager.run(key: "shared") { () async throws -> Int in
          joinerRan.open()
          return 2
        }
      }
    }
    #expect(await log.wait { $0.kind == .joined && $0.callerCount == 2 })
    manager.isSuspended = false
    #expect(await sighting.recorded.wait())
    #expect(sighting.value == Seen(requestID: "starter", priority: TaskPriority.low.rawValue))
    await expectValue(1, from: starter)
    await expectValue(1, from: joiner)
    #expect(!joinerRan.isOpen)
    #expect(await becomesIdle(manager))
  }

  /// An `AsyncOperation` built by the caller and performed runs its closure outside the
  /// caller's task: it sees none of the caller's task-local values.
  @Test func aPerformedAsyncOperationSeesNoCallersTaskLocalValues() async throws {
    let manager = OperationQueueManager(name: "context.perform")
    let seen = try await Trace.$requestID.withValue("req-3") {
      try await withDeadline {
        try await manager.perform(AsyncOperation { Trace.requestID })
      }
    }
    #expect(seen == "none")
    #expect(await becomesIdle(manager))
  }

  /// A closure that has not started when its caller's run is cancelled never runs, and the
  /// task made for it in the caller's context ends: what the closure captured is let go.
  @Test func aRunCancelledBeforeItsOperationStartsLetsItsClosureGoUnrun() async throws {
    let manager = OperationQueueManager(name: "context.run.cancelPending")
    manager.isSuspended = true
    let log = EventLog(manager)
    let ran = Gate()
    let (caller, payload) = Self.runHoldingAPayload(on: manager, ran: ran)
    #expect(await log.wait { $0.kind == .enqueued })
    caller.cancel()
    await expectCancellation(of: caller)
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    #expect(await eventually { payload.isFreed }, "the closure's task was never let go")
    #expect(!ran.isOpen)
  }

  private final class Payload: Sendable {}

  /// A caller running a closure that holds a new payload; the payload's weak reference.
  private static func runHoldingAPayload(
    on manager: OperationQueueManager, ran: Gate
  ) -> (Task<Int, any Error>, WeakReference<Payload>) {
    let payload = Payload()
    let caller = Task {
      try await manager.run { () async throws -> Int in
        ran.open()
        return withExtendedLifetime(payload) { 1 }
      }
    }
    return (caller, WeakReference(payload))
  }
}
