import AsyncBridge
import Foundation
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

  @Test func aRunsClosureRunsAtItsCallersPriority() async throws {
    let manager = OperationQueueManager(name: "context.run.priority")
    let caller = Task(priority: .low) {
      try await manager.run { Task.currentPriority.rawValue }
    }
    await expectValue(TaskPriority.low.rawValue, from: caller)
    #expect(await becomesIdle(manager))
  }

  /// A closure that suspends keeps its caller's context after it resumes (its later jobs run
  /// elsewhere, in the same task).
  @Test func aRunsClosureKeepsItsCallersContextAcrossSuspensions() async throws {
    let manager = OperationQueueManager(name: "context.run.suspending")
    let caller = Task(priority: .low) {
      try await Trace.$requestID.withValue("req-2") {
        try await manager.run { () async throws -> Seen in
          try await Task.sleep(for: .milliseconds(1))
          await Task.yield()
          return Seen.now
        }
      }
    }
    await expectValue(Seen(requestID: "req-2", priority: TaskPriority.low.rawValue), from: caller)
    #expect(await becomesIdle(manager))
  }

  @Test func aSharedRunSeesItsStartersContextAndAJoinersClosureNeverRuns() async throws {
    let manager = OperationQueueManager(name: "context.runKey.starter")
    manager.isSuspended = true
    let log = EventLog(manager)
    let starter = Task(priority: .low) {
      try await Trace.$requestID.withValue("starter") {
        try await manager.run(key: "shared") { Seen.now }
      }
    }
    #expect(await log.wait { $0.kind == .enqueued })
    let joinerRan = Gate()
    let joiner = Task(priority: .low) {
      try await Trace.$requestID.withValue("joiner") {
        try await manager.run(key: "shared") { () async throws -> Seen in
          joinerRan.open()
          return Seen.now
        }
      }
    }
    #expect(await log.wait { $0.kind == .joined && $0.waiterCount == 2 })
    manager.isSuspended = false
    let expected = Seen(requestID: "starter", priority: TaskPriority.low.rawValue)
    await expectValue(expected, from: starter)
    await expectValue(expected, from: joiner)
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

  /// A closure that has not started when its caller's run is cancelled never runs, and its
  /// held task ends (what it captured is let go).
  @Test func aRunCancelledBeforeItsOperationStartsNeverRunsItsClosure() async throws {
    let manager = OperationQueueManager(name: "context.run.cancelPending")
    manager.isSuspended = true
    let log = EventLog(manager)
    let ran = Gate()
    let caller = Task {
      try await manager.run { () async throws -> Int in
        ran.open()
        return 1
      }
    }
    #expect(await log.wait { $0.kind == .enqueued })
    caller.cancel()
    await expectCancellation(of: caller)
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    #expect(!ran.isOpen)
  }
}
