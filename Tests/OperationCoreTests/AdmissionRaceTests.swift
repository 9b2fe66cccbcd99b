import Dispatch
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Races between simultaneous admissions, and between delivery and the queue finishing work.
@Suite(.serialized) struct AdmissionRaceTests {
  @Test func simultaneousIdenticalRequestsNeverBothStartFreshWork() async throws {
    let rounds = 2_000
    let manager = OperationQueueManager(name: "admission-race")
    manager.isSuspended = true
    let barrier = SpinBarrier(parties: 2)
    let operations = Locked<[ObjectIdentifier: Int]>([:])
    let lanesDone = Gate()
    let lanesLeft = Locked(2)
    // Two dedicated threads, lined up before each round: spinning on the test's own thread
    // would hold a cooperative-pool thread that other tests need.
    for _ in 0..<2 {
      Thread.detachNewThread {
        for round in 0..<rounds {
          barrier.arrive(round: round + 1)
          let working = manager.enqueue(ManualOperation(key: round))
          operations.withLock { $0[ObjectIdentifier(working), default: 0] += 1 }
        }
        if lanesLeft.withLock({ left in
          left -= 1
          return left == 0
        }) {
          lanesDone.open()
        }
      }
    }
    #expect(await lanesDone.wait())
    #expect(manager.outstandingOperationCount == rounds)
    #expect(operations.withLock { $0.count } == rounds)
    manager.cancelAllOperations()
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
  }

  @Test func idleImpliesTheOutcomeOfWorkCancelledBeforeItStartedWasDelivered() async throws {
    let manager = OperationQueueManager(name: "idle-after-delivery")
    manager.isSuspended = true
    let handlerEntered = Gate()
    let handlerMayReturn = Gate()
    let handlerReturned = Gate()
    let operation = ManualOperation()
    manager.enqueue(operation) { _ in
      // Runs on the cancelling thread and holds delivery open until the test lets it go.
      handlerEntered.open()
      _ = handlerMayReturn.block()
      handlerReturned.open()
    }
    DispatchQueue.global().async { operation.cancel() }
    // The cancellation is being delivered before the queue may start the operation.
    #expect(await handlerEntered.wait())
    manager.isSuspended = false
    // The queue starts the cancelled operation while its handler is still running: it must
    // not be reported finished (nor the manager idle) before delivery has ended.
    try await Task.sleep(for: .milliseconds(100))
    #expect(!operation.isFinished)
    #expect(!manager.isIdle)
    handlerMayReturn.open()
    #expect(await becomesIdle(manager))
    #expect(handlerReturned.isOpen)
    #expect(operation.isFinished && operation.isCancelled)
  }
}
