import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// A quality-of-service change (which sets the operation's queue priority again) racing a
/// caller who joins or leaves: the priority afterwards is always the callers', never the one
/// the setter read before the caller changed it. Each round lines a thread that joins (or
/// removes) an urgent waiter up with one that changes the quality of service; reading the
/// priority takes a while, which widens the window between a read and the write after it.
@Suite struct QualityOfServiceRaceTests {
  @Test(.timeLimit(.minutes(1)))
  func aQualityOfServiceChangeNeverPutsBackAnOlderPriority() async throws {
    let manager = OperationQueueManager(name: "qos.race", maxConcurrentOperationCount: 1)
    manager.isSuspended = true
    let shared = SlowPriorityReads(key: 1)
    manager.enqueue(shared, priority: .low) { _ in }  // A caller that stays to the end.
    // Bounded by rounds and by time: under ThreadSanitizer a round takes far longer.
    let maximumRounds = 20_000
    let deadline = ContinuousClock.now + .seconds(2)
    let barrier = SpinBarrier(parties: 2)
    let wrong = Locked<[String]>([])
    let lastRound = Locked(false)
    await onOwnThreads(2) { lane in
      var round = 0
      repeat {
        round += 1
        let qos: QualityOfService = round.isMultiple(of: 2) ? .utility : .background
        // Each round: a join races a change, then a leave races another.
        barrier.arrive(round: 4 * round - 3)
        if lane == 0 {
          let admission = manager.admit(
            SlowPriorityReads(key: 1),
            waiter: OperationWaiter(interest: .untilLeaving, callbackQueue: nil) { _ in },
            priority: .veryHigh)
          barrier.arrive(round: 4 * round - 2)
          let joined = shared.queuePriority
          if joined != .veryHigh { wrong.withLock { $0.append("\(joined) after a join") } }
          barrier.arrive(round: 4 * round - 1)
          if let id = admission.waiterID { shared.removeWaiter(id, resumingWith: .cancelled) }
          if round == maximumRounds || ContinuousClock.now >= deadline {
            lastRound.withLock { $0 = true }
          }
          barrier.arrive(round: 4 * round)
          let left = shared.queuePriority
          if left != .low { wrong.withLock { $0.append("\(left) after a leave") } }
        } else {
          shared.qualityOfService = qos
          barrier.arrive(round: 4 * round - 2)
          barrier.arrive(round: 4 * round - 1)
          shared.qualityOfService = qos == .utility ? .background : .utility
          barrier.arrive(round: 4 * round)
        }
      } while !lastRound.withLock { $0 }
    }
    let found = wrong.withLock { $0 }
    #expect(found.isEmpty, "\(found.count) rounds left an older priority: \(found.prefix(5))")
    shared.release(1)
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
  }
}

/// A test operation whose queue-priority getter takes a while (the spin stands in for a busy
/// machine), so a setter that reads the priority before writing it again leaves room for
/// another thread's change in between.
private final class SlowPriorityReads: TestOperation<any Error>, @unchecked Sendable {
  override var queuePriority: Operation.QueuePriority {
    get {
      let priority = super.queuePriority
      spin(500)
      return priority
    }
    set { super.queuePriority = newValue }
  }
}
