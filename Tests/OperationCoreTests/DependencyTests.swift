import Foundation
import OperationCore
import TestSupport
import Testing

@Suite struct DependencyTests {
  @Test func dependentWaitsForItsDependencyInTheSameManager() async throws {
    let manager = OperationQueueManager(name: "dependencies.same")
    let upstream = ManualOperation()
    let upstreamFinishedAtStart = Recorder<Bool>()
    let downstream = ManualOperation(ending: .returning(2)) { _ in
      upstreamFinishedAtStart.record(upstream.isFinished)
    }
    downstream.addDependency(upstream)
    // Enqueue the dependent first: only the dependency, not the order, may hold it back.
    manager.enqueue(downstream)
    manager.enqueue(upstream)

    #expect(await upstream.started.wait())
    #expect(!downstream.started.isOpen)
    #expect(!downstream.isExecuting)

    upstream.release(1)
    #expect(await downstream.started.wait())
    #expect(upstreamFinishedAtStart.values == [true])
    #expect(await becomesIdle(manager))
  }

  @Test func dependencyAcrossTwoManagersHoldsTheDependent() async throws {
    let userInitiated = OperationQueueManager(name: "dependencies.user")
    let background = OperationQueueManager(name: "dependencies.background")
    let upstream = ManualOperation()
    let upstreamFinishedAtStart = Recorder<Bool>()
    let downstream = ManualOperation(ending: .returning(2)) { _ in
      upstreamFinishedAtStart.record(upstream.isFinished)
    }
    downstream.addDependency(upstream)
    let results = ResultRecorder()
    background.enqueue(downstream) { results.record($0) }
    userInitiated.enqueue(upstream)

    #expect(await upstream.started.wait())
    #expect(!downstream.started.isOpen)
    #expect(background.outstandingOperationCount == 1)

    upstream.release(1)
    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.value == 2)
    #expect(upstreamFinishedAtStart.values == [true])
    #expect(await becomesIdle(background))
    #expect(await becomesIdle(userInitiated))
  }

  @Test func cancelledDependencyStillLetsTheDependentRun() async throws {
    let manager = OperationQueueManager(name: "dependencies.cancelled")
    manager.isSuspended = true
    let upstream = ManualOperation()
    let downstream = ManualOperation(ending: .returning(2))
    downstream.addDependency(upstream)
    let results = ResultRecorder()
    manager.enqueue(upstream)
    manager.enqueue(downstream) { results.record($0) }

    upstream.cancel()
    manager.isSuspended = false

    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.value == 2)
    #expect(upstream.mainCallCount == 0)
    #expect(await becomesIdle(manager))
    #expect(upstream.isFinished)
  }
}
