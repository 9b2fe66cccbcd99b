import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Shape 4 (`Legacy/TypedResultOperation.swift`): a result-typed family whose base `cancel()`
/// traps. The bridge never cancels an instance no caller asked to cancel: the builder makes no
/// instance that would be dropped, and an instance dropped for work in flight is left as it is.
/// A case in which a `cancel()` call would be a defect runs in a child process, so the trap
/// fails that case without ending the test run.
@Suite struct TypedResultFamilyTests {
  static let short = URL(string: "https://sho.rt/abc")!
  static let target = URL(string: "https://example.com/article")!

  /// Ten callers of one key, seven awaiting and three with completion handlers: the builder
  /// runs once, one `HEAD` request goes out, and every caller gets the URL. Nothing is
  /// cancelled: a `cancel()` would trap the child process.
  @Test func tenCoalescedCallersBuildOneOperation() async {
    await #expect(processExitsWith: .success) {
      let manager = OperationQueueManager(name: "family.builder")
      let service = ManualUnfurlService()
      let short = TypedResultFamilyTests.short
      let events = EventLog(manager)
      var tasks: [Task<URL, any Error>] = []
      tasks.append(
        Task {
          try await manager.perform(coalescingKey: short) {
            UnfurlURLOperation(shortURL: short, service: service)
          }
        })
      guard await eventually({ service.requestCount == 1 }) else { exit(3) }
      let handled = Recorder<Result<URL, any Error>>()
      for index in 1..<10 {
        if index.isMultiple(of: 3) {
          manager.enqueue(
            coalescingKey: short, { UnfurlURLOperation(shortURL: short, service: service) }
          ) { handled.record($0) }
        } else {
          tasks.append(
            Task {
              try await manager.perform(coalescingKey: short) {
                UnfurlURLOperation(shortURL: short, service: service)
              }
            })
        }
      }
      guard await events.wait(count: 9, where: { $0.kind == .joined }) else { exit(4) }
      service.answer(TypedResultFamilyTests.target)
      for task in tasks {
        guard case .success(TypedResultFamilyTests.target)? = await result(of: task) else {
          exit(5)
        }
      }
      guard await handled.wait(forCount: 3),
        handled.values.allSatisfy({ (try? $0.get()) == TypedResultFamilyTests.target })
      else { exit(6) }
      guard await becomesIdle(manager) else { exit(7) }
      let made = UnfurlURLOperation.made.withLock { $0 }
      exit(made == 1 && service.requestCount == 1 ? 0 : 8)
    }
  }

  /// Two callers hand over instances of their own under one key: both get the value, and the
  /// second's instance, dropped, is never started and never cancelled. Its adapter lets it go
  /// (so nothing of the bridge can touch it later) while it is still unstarted.
  @Test func aDroppedInstanceIsNeverCancelled() async {
    await #expect(processExitsWith: .success) {
      let manager = OperationQueueManager(name: "family.dropped")
      let service = ManualUnfurlService()
      let short = TypedResultFamilyTests.short
      let events = EventLog(manager)
      let first = Task {
        try await manager.perform(
          UnfurlURLOperation(shortURL: short, service: service), coalescingKey: short)
      }
      guard await eventually({ service.requestCount == 1 }) else { exit(3) }
      let upstream = BlockOperation {}
      var dropped: UnfurlURLOperation? = UnfurlURLOperation(shortURL: short, service: service)
      dropped?.addDependency(upstream)
      let droppedReference = WeakReference(dropped!)
      // Handed over through a box the task empties, so the task keeps no reference of its own.
      let handOver = Locked(dropped)
      let second = Task {
        try await manager.perform(handOver.withLock { $0.take()! }, coalescingKey: short)
      }
      guard await events.wait(where: { $0.kind == .joined }) else { exit(4) }
      service.answer(TypedResultFamilyTests.target)
      guard case .success(TypedResultFamilyTests.target)? = await result(of: first),
        case .success(TypedResultFamilyTests.target)? = await result(of: second)
      else { exit(5) }
      guard await becomesIdle(manager) else { exit(6) }
      // Untouched: detached from its dependencies (corelibs' rule), never started or cancelled.
      let untouched = dropped.map {
        $0.dependencies.isEmpty && !$0.isCancelled && !$0.isExecuting && !$0.isFinished
      }
      guard untouched == true, service.requestCount == 1 else { exit(7) }
      // The bridge holds it no longer: nothing of it can cancel the instance later.
      dropped = nil
      guard await eventually({ droppedReference.isFreed }) else { exit(8) }
      withExtendedLifetime(upstream) { exit(0) }
    }
  }

  /// Ten callers that each hand over an instance of their own under one key: ten are built and
  /// nine dropped, one request goes out, and no `cancel()` is called, up to the moment the bridge
  /// has let every instance go.
  @Test func tenCallersHandingOverInstancesCancelNone() async {
    let manager = OperationQueueManager(name: "family.instances")
    let service = ManualUnfurlService()
    let short = Self.short
    let events = EventLog(manager)
    let cancelCalls = Locked(0)
    let handled = Recorder<Result<URL, any Error>>()
    var references: [WeakReference<CancellableUnfurlURLOperation>] = []
    for _ in 0..<10 {
      let unfurl = CancellableUnfurlURLOperation(
        shortURL: short, service: service, cancelCalls: cancelCalls)
      references.append(WeakReference(unfurl))
      manager.enqueue(unfurl, coalescingKey: short) { handled.record($0) }
    }
    #expect(await events.wait(count: 9) { $0.kind == .joined })
    service.answer(Self.target)
    #expect(await handled.wait(forCount: 10))
    #expect(handled.values.allSatisfy { (try? $0.get()) == Self.target })
    #expect(service.requestCount == 1)
    #expect(await eventually { references.allSatisfy(\.isFreed) })
    #expect(cancelCalls.withLock { $0 } == 0)
  }

  /// The documented outcome when the only caller leaves: the work is cancelled, through its own
  /// `cancel()`, which in this family traps. (docs/MIGRATING.md: use `whenAbandoned: .finish`,
  /// or override `cancel()`.)
  @Test func theOnlyCallerLeavingCancelsTheWorkThroughItsCancel() async {
    await #expect(processExitsWith: .failure) {
      let manager = OperationQueueManager(name: "family.leaving")
      let service = ManualUnfurlService()
      let short = TypedResultFamilyTests.short
      let caller = Task {
        try await manager.perform(coalescingKey: short) {
          UnfurlURLOperation(shortURL: short, service: service)
        }
      }
      guard await eventually({ service.requestCount == 1 }) else { exit(3) }
      caller.cancel()
      _ = await result(of: caller)
      // The cancellation is carried out on a queue of its own, after the caller resumed.
      guard await becomesIdle(manager) else { exit(4) }
      exit(0)
    }
  }

  /// The safe forms: a subclass whose `cancel()` calls `cancel(with:)` ends with its typed
  /// error when its only caller leaves; with `.finish`, nothing is cancelled and the work ends
  /// by itself.
  @Test func theSafeFormsEndWithoutATrap() async {
    let manager = OperationQueueManager(name: "family.safe")
    let service = ManualUnfurlService()
    let overridden = CancellableUnfurlURLOperation(shortURL: Self.short, service: service)
    let caller = Task { try await manager.perform(overridden) }
    #expect(await eventually { service.requestCount == 1 })
    caller.cancel()
    #expect(await error(of: caller) is CancellationError)
    #expect(await eventually { overridden.isFinished })
    #expect(overridden.result?.failure == .cancelled)

    let short = Self.short
    let finishing = Task {
      try await manager.perform(coalescingKey: "finishing", whenAbandoned: .finish) {
        UnfurlURLOperation(shortURL: short, service: service)
      }
    }
    #expect(await eventually { service.requestCount == 2 })
    finishing.cancel()
    #expect(await error(of: finishing) is CancellationError)
    service.answer(Self.target)
    #expect(await becomesIdle(manager))
  }

  /// One conformance on the generic base (`Legacy/Adoption.swift`) serves each subclass: the
  /// plain one, and the chained one awaited after its upstream was enqueued.
  @Test func oneConformanceOnTheBaseServesEverySubclass() async throws {
    let manager = OperationQueueManager(name: "family.conformance")
    let service = ManualUnfurlService()
    let unfurl = UnfurlURLOperation(shortURL: Self.short, service: service)
    let host = UnfurledHostOperation()
    host.addDependency(unfurl)
    manager.enqueue(unfurl) { _ in }
    let hostTask = Task { try await manager.perform(host) }
    #expect(await eventually { service.requestCount == 1 })
    service.answer(Self.target)
    await expectValue("example.com", from: hostTask)
    #expect(try await manager.perform(unfurl) == Self.target)  // Finished: its outcome at once.

    let failing = Task {
      try await manager.perform(UnfurlURLOperation(shortURL: Self.short, service: service))
    }
    #expect(await eventually { service.requestCount == 2 })
    service.answer(nil)
    #expect(await error(of: failing) as? UnfurlURLOperation.Error == .noTarget)
  }

  /// The builder runs in the calling task before it suspends: it sees the caller's task-local
  /// values (docs: "Whose context the work sees").
  @Test func theBuilderSeesTheCallersTaskLocalValues() async {
    let manager = OperationQueueManager(name: "family.context")
    let service = ManualUnfurlService()
    let seen = Locked<String?>(nil)
    let short = Self.short
    let task = Task {
      try await CompletionHandlerShapeTests.Trace.$requestID.withValue("req-8") {
        try await manager.perform(coalescingKey: short) { () -> UnfurlURLOperation in
          seen.withLock { $0 = CompletionHandlerShapeTests.Trace.requestID }
          return UnfurlURLOperation(shortURL: short, service: service)
        }
      }
    }
    #expect(await eventually { service.requestCount == 1 })
    service.answer(Self.target)
    await expectValue(Self.target, from: task)
    #expect(seen.withLock { $0 } == "req-8")
  }

  /// A task already cancelled builds nothing; a caller's deadline leaves the work to the others.
  @Test func aCancelledTaskBuildsNothing() async {
    let manager = OperationQueueManager(name: "family.cancelled")
    let built = Recorder<Int>()
    let service = ManualUnfurlService()
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await manager.perform(coalescingKey: "never") { () -> UnfurlURLOperation in
        built.record(1)
        return UnfurlURLOperation(shortURL: Self.short, service: service)
      }
    }
    #expect(await error(of: task) is CancellationError)
    #expect(built.values.isEmpty)
  }
}
