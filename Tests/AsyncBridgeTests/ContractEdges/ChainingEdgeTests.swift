import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// Silent forever-waits and inconsistencies at the edges of chaining and event streams.
@Suite struct ChainingEdgeTests {
  /// Either the layer enqueues the unclaimed upstream on the same manager (and the value
  /// arrives) or it reports the mistake with an error; waiting forever fails.
  @Test func performingADownstreamWhoseUpstreamWasNeverEnqueuedDoesNotWaitForever() async throws {
    let manager = OperationQueueManager(name: "edges.chain.orphan")
    let upstream = ManualOperation(ending: .returning(5))
    let downstream = DescribeOperation(upstream: upstream)
    let task = Task { try await manager.perform(downstream) }
    switch await result(of: task, within: .seconds(30)) {
    case nil:
      Issue.record("perform(downstream) still waits for an upstream nobody enqueued")
      task.cancel()
    case .success(let value)?:
      #expect(value == "value 5")
      #expect(upstream.mainCallCount == 1)
    case .failure(let error)?:
      #expect(!(error is CancellationError), "reported as \(error)")
    }
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func downstreamOfAnUpstreamCancelledBeforeItStartedIsCancelled() async throws {
    let manager = OperationQueueManager(name: "edges.chain.cancelledEarly")
    let upstream = ManualOperation(ending: .whenReleased)
    manager.enqueue(upstream)
    upstream.cancel()
    let downstream = DescribeOperation(upstream: upstream)
    await expectCancellation(of: Task { try await manager.perform(downstream) })
    #expect(downstream.isCancelled)
    #expect(await becomesIdle(manager))
  }

  @Test func downstreamWaitingForAnUpstreamCancelledWhileRunningIsCancelled() async throws {
    let manager = OperationQueueManager(name: "edges.chain.cancelledLate")
    let upstream = ManualOperation(ending: .whenReleased)
    manager.enqueue(upstream)
    let downstream = DescribeOperation(upstream: upstream)
    let task = Task { try await manager.perform(downstream) }
    #expect(await upstream.started.wait())
    upstream.cancel()
    await expectCancellation(of: task)
    #expect(downstream.isCancelled)
    #expect(await becomesIdle(manager))
  }

  @Test func eventStreamEndsWhenItsManagerIsFreed() async throws {
    let (manager, iterating) = await {
      () async -> (WeakReference<OperationQueueManager>, Task<Int, Never>) in
      let manager = OperationQueueManager(name: "edges.events.freed")
      let events = manager.makeEvents()
      let iterating = counting(events)
      #expect(
        await result(of: Task { try await manager.perform(ManualOperation(ending: .returning(1))) })
          != nil)
      return (WeakReference(manager), iterating)
    }()
    #expect(await eventually { manager.isFreed })
    let seen = await value(of: iterating, within: .seconds(30))
    #expect(seen != nil, "iteration did not end after the manager was freed")
    #expect(seen.map { $0 >= 3 } ?? true, "events before the release were lost: \(seen ?? 0)")
    iterating.cancel()
  }
}
