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
