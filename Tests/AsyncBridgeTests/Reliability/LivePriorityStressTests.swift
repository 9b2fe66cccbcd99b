import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Escalations and leaves racing joins, the finish and cancel-all. Each round: tasks of
/// random priorities join a few keys on a suspended width-1 manager while other tasks escalate
/// and cancel random ones; once the racing is over, every pending operation's queue priority is
/// the highest among its callers still waiting. Then the queue resumes while the racing goes on
/// against the finish (and, in some rounds, cancel-all): every task gets its key's value or
/// cancellation, and the events keep their grammar. Seeded (`RELIABILITY_SEED` replays a run;
/// each prints its seed) and bounded by a number of rounds and by time.
@Suite(.serialized) struct LivePriorityStressTests {
  /// The task priorities callers run at, with the queue priority each asks for.
  private static let priorities: [(task: TaskPriority, queue: Operation.QueuePriority)] = [
    (.background, .veryLow), (.low, .low), (.medium, .normal), (.high, .high),
  ]

  @Test(.timeLimit(.minutes(2)))
  func escalationsAndLeavesRacingJoinsFinishAndCancelAllKeepThePriorityOfTheCallersLeft()
    async throws
  {
    let (seed, roundsRun) = await runStressRounds(
      budget: .seconds(6), maximumRounds: 500, minimumRounds: 10
    ) { await Self.round(seed: $0, round: $1) }
    print("live priority: seed \(seed), \(roundsRun) rounds")
  }

  /// One caller of a round: its task, its key, and what the racers did to it.
  private struct Caller {
    let key: Int
    let priority: Operation.QueuePriority
    let task: Task<Int, any Error>
  }

  private static func round(seed: UInt64, round: Int) async -> [String] {
    var rng = SeededGenerator(seed: seed ^ (UInt64(round) &* 0x9E37_79B9_7F4A_7C15))
    let manager = OperationQueueManager(name: "stress.priority", maxConcurrentOperationCount: 1)
    manager.isSuspended = true
    let invariants = EventInvariants(manager)
    let keys = 3
    let callers = (0..<16).map { _ -> Caller in
      let key = Int.random(in: 0..<keys, using: &rng)
      let priority = priorities.randomElement(using: &rng)!
      let operation = ManualOperation(key: key, ending: .returningSoon(key, microseconds: 20))
      invariants.track(operation)
      return Caller(
        key: key, priority: priority.queue,
        task: Task(priority: priority.task) { try await manager.perform(operation) })
    }
    // The racers' picks, made up front so that a seed replays them.
    let escalated = Set((0..<callers.count).filter { _ in Bool.random(using: &rng) })
    let cancelled = Set((0..<callers.count).filter { _ in Int.random(in: 0..<4, using: &rng) == 0 })
    let lateCancelled = (0..<callers.count).filter { _ in Int.random(in: 0..<6, using: &rng) == 0 }
    let lateEscalated = (0..<callers.count).filter { _ in Bool.random(using: &rng) }
    let cancelsAll = Int.random(in: 0..<5, using: &rng) == 0
    let racers = [
      Task { for index in escalated { callers[index].task.escalatePriority(to: .high) } },
      Task { for index in cancelled { callers[index].task.cancel() } },
    ]
    for racer in racers { await racer.value }

    var problems: [String] = []
    // Once the racing is over, each key's work asks for the highest priority left.
    for key in 0..<keys {
      let left = callers.indices.filter { callers[$0].key == key && !cancelled.contains($0) }
      guard !left.isEmpty else { continue }
      let expected = left.map { index in
        escalated.contains(index)
          ? Operation.QueuePriority.high : callers[index].priority
      }.max { $0.rawValue < $1.rawValue }!
      let settled = await eventually {
        manager.inFlightOperation(ManualOperation.self, key: key)?.queuePriority == expected
      }
      if !settled {
        let actual = manager.inFlightOperation(ManualOperation.self, key: key)?.queuePriority
        problems.append(
          "key \(key): queue priority \(String(describing: actual?.rawValue)), expected "
            + "\(expected.rawValue) for callers \(left)")
      }
    }

    // The finish, cancel-all and more escalations and leaves, all at once.
    manager.isSuspended = false
    let lateRacers = [
      Task { for index in lateEscalated { callers[index].task.escalatePriority(to: .high) } },
      Task { for index in lateCancelled { callers[index].task.cancel() } },
      Task { if cancelsAll { invariants.cancelAll(manager, othersMaySettle: true) } },
    ]
    for racer in lateRacers { await racer.value }
    let deadline = ContinuousClock.now + .seconds(30)
    for (index, caller) in callers.enumerated() {
      let left = max(deadline - ContinuousClock.now, .milliseconds(100))
      switch await result(of: caller.task, within: left) {
      case nil:
        problems.append("caller \(index) still waiting after 30 s")
      case .success(let value)?:
        if value != caller.key { problems.append("caller \(index) got \(value)") }
      case .failure(is CancellationError)?:
        break
      case .failure(let error)?:
        problems.append("caller \(index) failed with \(error)")
      }
    }
    problems += await invariants.verify(manager, timeout: .seconds(30))
    if !(await invariants.log.stop(timeout: .seconds(30))) {
      problems.append("the event log's subscription did not end")
    }
    return problems
  }
}

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
