import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Queue control over foreign operations: width, suspension, priorities, dependencies, and the
/// chained legacy variant; events of foreign work.
@Suite struct QueueControlForeignTests {
  @Test func aWidthOfOneRunsLegacyOperationsOneAtATime() async {
    let manager = OperationQueueManager(maxConcurrentOperationCount: 1)
    let running = Locked((now: 0, most: 0))
    let operations = (0..<20).map { _ in
      BlockOperation {
        running.withLock {
          $0.now += 1; $0.most = max($0.most, $0.now)
        }
        Thread.sleep(forTimeInterval: 0.001)
        running.withLock { $0.now -= 1 }
      }
    }
    let tasks = operations.map { operation in Task { try await manager.perform(operation) } }
    for task in tasks { _ = await value(of: task) }
    #expect(running.withLock { $0.most } == 1)
  }

  @Test func aSuspendedManagerDoesNotStartLegacyWork() async {
    let manager = OperationQueueManager()
    manager.isSuspended = true
    let service = ManualQuestionService()
    let task = Task {
      try await manager.perform(FetchTitlesOperation(site: "s", service: service))
    }
    #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 1 })
    #expect(service.requestCount == 0)
    manager.isSuspended = false
    #expect(await service.firstRequest.wait())
    service.answer(.success([]))
    #expect(await value(of: task) == [])
  }

  @Test func theChainedLegacyVariantRunsAfterItsDependency() async {
    let manager = OperationQueueManager()
    let store = FixedQuestionStore(questions: [5: QuestionRecord(id: 5, title: "Five")])
    let load = LoadQuestionOperation(id: 5, store: store)
    let render = RenderQuestionOperation()
    render.addDependency(load)
    let rendering = Task { try await manager.perform(render) }
    let loading = Task { try await manager.perform(load) }
    #expect(await value(of: rendering) == "#5: Five")
    #expect(await value(of: loading) == QuestionRecord(id: 5, title: "Five"))
  }

  @Test func aTypedLegacyFailureReachesTheCaller() async {
    let manager = OperationQueueManager()
    let load = LoadQuestionOperation(id: 1, store: FixedQuestionStore(questions: [:]))
    let render = RenderQuestionOperation()
    render.addDependency(load)
    manager.enqueue(load) { _ in }
    let task = Task { try await manager.perform(render) }
    #expect(await error(of: task) as? LegacyAPIError == .notFound)
  }

  /// A foreign operation whose dependency finishes on another queue runs once the dependency
  /// has finished, every time. corelibs marks the dependents of a finished operation ready one
  /// after another, so the adapter (which shares the dependency) may start a moment before the
  /// foreign operation is marked ready: the adapter checks its readiness again before it
  /// reports `notReady`.
  @Test func aDependencyFinishingOnAnotherQueueNeverMakesItNotReady() async {
    let manager = OperationQueueManager()
    let elsewhere = OperationQueue()
    var notReady = 0
    for _ in 0..<200 {
      // Still running on its queue when the await begins, as a load answered by a service is.
      let load = BlockOperation { Thread.sleep(forTimeInterval: 0.002) }
      let render = BlockOperation {}
      render.addDependency(load)
      elsewhere.addOperation(load)
      let rendering = Task { try await manager.perform(render) }
      switch await result(of: rendering, within: .seconds(30)) {
      case .success?: break
      case .failure(let error)? where error is ForeignOperationError: notReady += 1
      case let other:
        Issue.record("expected the operation to run, got \(String(describing: other))")
      }
    }
    #expect(notReady == 0, "\(notReady) of 200 awaits failed as not ready")
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func aDependencyAddedTooLateIsATypedErrorNotATrap() async {
    let manager = OperationQueueManager()
    manager.isSuspended = true
    let late = BlockOperation {}
    let operation = BlockOperation {}
    let task = Task { try await manager.perform(operation) }
    #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 1 })
    operation.addDependency(late)
    manager.isSuspended = false
    let thrown = await error(of: task)
    #expect(thrown as? ForeignOperationError == .notReady(operationName: "BlockOperation"))
    late.start()
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func theCallersPriorityIsTheQueuePriority() async {
    let manager = OperationQueueManager(maxConcurrentOperationCount: 1)
    let service = ManualQuestionService()
    let order = Locked<[String]>([])
    let blocker = Task {
      try await manager.perform(FetchTitlesOperation(site: "b", service: service))
    }
    #expect(await service.firstRequest.wait())
    let low = Task {
      try await manager.perform(
        BlockOperation { order.withLock { $0.append("low") } }, priority: .veryLow)
    }
    #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 2 })
    let high = Task {
      try await manager.perform(
        BlockOperation { order.withLock { $0.append("high") } }, priority: .veryHigh)
    }
    #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 3 })
    service.answer(.success([]))
    _ = await value(of: blocker)
    _ = await value(of: high)
    _ = await value(of: low)
    #expect(order.withLock { $0 } == ["high", "low"])
  }

  /// Foreign work publishes the events of its adapter, in the core's grammar:
  /// `enqueued (joined)* started (joined)* <one terminal>`, named after the foreign operation.
  @Test func foreignWorkPublishesItsLifecycleInOrder() async {
    let manager = OperationQueueManager()
    let events = EventLog(manager)
    let service = ManualQuestionService()
    let first = Task {
      try await manager.perform(FetchTitlesOperation(site: "s", service: service), coalescingKey: 1)
    }
    #expect(await service.firstRequest.wait())
    let second = Task {
      try await manager.perform(FetchTitlesOperation(site: "s", service: service), coalescingKey: 1)
    }
    #expect(await events.wait { $0.kind == .joined })
    service.answer(.success(["e"]))
    _ = await value(of: first)
    _ = await value(of: second)
    #expect(await events.wait(count: 4) { _ in true })
    let kinds = events.events.map(\.kind.shortName)
    #expect(kinds == ["enqueued", "started", "joined", "finished(success)"], "\(kinds)")
    #expect(events.events.allSatisfy { $0.operationName == "FetchTitlesOperation" })
  }
}
