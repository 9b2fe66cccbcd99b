import AsyncBridge
import Foundation
import OperationCore
import Synchronization
import TestSupport
import Testing

/// The races at the edges of the contract, each checked by ``EventInvariants``: admission
/// against `cancelAllOperations()`, a join against the finish of the work it joins, and two
/// first enqueues of one key. Seeded (`RELIABILITY_SEED` replays a run; each prints its seed)
/// and bounded by a number of rounds and by time; every wait has a deadline that fails the
/// test instead of hanging it.
@Suite(.serialized) struct EdgeRaceStressTests {
  /// A width-2 manager, 30 tasks awaiting operations that never finish on their own (some
  /// sharing keys), and `cancelAllOperations()` called the moment the last task's `enqueued` or
  /// `joined` event arrives: every operation admitted before it must end cancelled, so every
  /// task gets `CancellationError`. One that the sweep misses starts and never ends.
  @Test(.timeLimit(.minutes(2)))
  func cancelAllRacingAdmissionCancelsEveryAdmittedOperation() async throws {
    let seed = StressSettings.seed()
    let rounds = 1_000
    let stop = ContinuousClock.now + StressBudget.scaled(.seconds(8))
    var roundsRun = 0
    for round in 0..<rounds where ContinuousClock.now < stop {
      roundsRun += 1
      let problems = await Self.admissionAgainstCancelAll(seed: seed, round: round)
      guard problems.isEmpty else {
        for problem in problems.prefix(10) {
          Issue.record("seed \(seed), round \(round) of \(roundsRun): \(problem)")
        }
        break
      }
    }
    print("admission vs cancel-all: seed \(seed), \(roundsRun) rounds")
  }

  /// One round of ``cancelAllRacingAdmissionCancelsEveryAdmittedOperation()``.
  private static func admissionAgainstCancelAll(seed: UInt64, round: Int) async -> [String] {
    var rng = SeededGenerator(seed: seed ^ (UInt64(round) &* 0x9E37_79B9_7F4A_7C15))
    let callers = 30
    let manager = OperationQueueManager(name: "edge.cancelAll", maxConcurrentOperationCount: 2)
    let everyoneAdmitted = Gate()
    let admissions = Atomic<Int>(0)
    let invariants = EventInvariants(manager) { event in
      guard event.kind == .enqueued || event.kind == .joined else { return }
      if admissions.add(1, ordering: .relaxed).newValue == callers { everyoneAdmitted.open() }
    }
    // Runs on the log's task, as soon as the last admission's event is recorded.
    everyoneAdmitted.whenOpen { invariants.cancelAll(manager) }
    let operations = (0..<callers).map { _ in
      let key = Int.random(in: 0..<4, using: &rng) == 0 ? nil : Int.random(in: 0..<12, using: &rng)
      return ManualOperation(key: key, ending: .whenReleased)
    }
    for operation in operations { invariants.track(operation) }
    let tasks = operations.map { operation in Task { try await manager.perform(operation) } }

    var problems: [String] = []
    // Generous: at the start of a full run hundreds of tests compete for the two cores.
    if !(await everyoneAdmitted.wait(timeout: .seconds(30))) {
      problems.append(
        "only \(admissions.load(ordering: .relaxed)) of \(callers) enqueued/joined events")
      manager.cancelAllOperations()
    }
    var hung = 0
    // One deadline for all: a hang shows within it, a loaded machine gets the whole of it.
    let deadline = ContinuousClock.now + .seconds(30)
    for (index, task) in tasks.enumerated() {
      let left = max(deadline - ContinuousClock.now, .milliseconds(100))
      switch await result(of: task, within: left) {
      case nil:
        hung += 1
      case .failure(is CancellationError)?:
        break
      case let other?:
        problems.append("task \(index) got \(other) instead of cancellation")
      }
    }
    if hung > 0 { problems.append("\(hung) tasks still waiting 30 s after cancel-all: a hang") }
    // Unjam what the sweep missed, so the round can drain and report.
    for operation in operations { operation.release(0) }
    problems += await invariants.verify(manager, timeout: .seconds(30))
    if !(await invariants.log.stop(timeout: .seconds(30))) {
      problems.append("the event log's subscription did not end")
    }
    return problems
  }

  /// A request for a key races the finish of the work in flight for that key, from two threads
  /// lined up by a barrier: it either joins (and its `joined` event comes before the work's
  /// `finished`) or starts fresh work. A staircase on the delay keeps the rounds on the
  /// boundary between the two.
  @Test(.timeLimit(.minutes(2)))
  func joinRacingFinishKeepsEachOperationsEventsInLifecycleOrder() async throws {
    let seed = StressSettings.seed()
    let result = await Self.race(
      seed: seed, rounds: 3_000, budget: StressBudget.scaled(.milliseconds(2_500)),
      name: "edge.joinVsFinish",
      prepare: { manager, invariants, round in
        let working = ManualOperation(key: round, ending: .whenReleased)
        invariants.track(working)
        manager.enqueue(working) { invariants.received($0, from: working) }
        // Started (on a free slot of a wide queue) before the race begins.
        _ = working.started.block(timeout: .seconds(30))
        return working
      },
      first: { _, _, working, _ in working?.release(1) },
      second: { manager, invariants, _, round in
        let request = ManualOperation(key: round, ending: .returning(2))
        return invariants.enqueue(request, on: manager) === request
      })
    #expect(result.finishedInTime, "seed \(seed): the racing threads did not finish in time")
    for problem in result.problems.prefix(10) { Issue.record("seed \(seed): \(problem)") }
    print("join vs finish: seed \(seed), \(result.summary)")
  }

  /// Two identical new requests enqueued at the same moment from two threads: one is enqueued,
  /// the other joins it, and the `joined` event never comes before the `enqueued` one.
  @Test(.timeLimit(.minutes(2)))
  func twoFirstEnqueuesOfOneKeyPublishEnqueuedBeforeJoined() async throws {
    let seed = StressSettings.seed()
    // Both requests stay in flight until the round is over, so neither can finish early.
    let requests = Locked<[ManualOperation]>([])
    let enqueue: RaceStep = { manager, invariants, _, round in
      let request = ManualOperation(key: round, ending: .whenReleased)
      requests.withLock { $0.append(request) }
      return invariants.enqueue(request, on: manager) === request
    }
    let result = await Self.race(
      seed: seed, rounds: 3_000, budget: StressBudget.scaled(.milliseconds(2_500)),
      name: "edge.firstEnqueues",
      prepare: { _, _, _ in nil },
      first: { manager, invariants, working, round in
        _ = enqueue(manager, invariants, working, round)
      },
      second: enqueue, freshWhenLate: false,
      afterRound: {
        let round = requests.withLock { requests in
          defer { requests.removeAll() }
          return requests
        }
        for request in round { request.release(1) }
      })
    #expect(result.finishedInTime, "seed \(seed): the racing threads did not finish in time")
    for problem in result.problems.prefix(10) { Issue.record("seed \(seed): \(problem)") }
    print("two first enqueues: seed \(seed), \(result.summary)")
  }

  // MARK: Two threads, one race per round

  /// The second racer's step; returns whether its request became fresh work.
  typealias RaceStep =
    @Sendable (OperationQueueManager, EventInvariants, ManualOperation?, Int) -> Bool

  /// What a two-thread race found.
  struct RaceResult {
    var finishedInTime: Bool
    var problems: [String]
    var summary: String
  }

  /// Runs `rounds` rounds (or until `budget` is spent) of `first` against `second` on two
  /// threads lined up by a barrier, each after a seeded random spin that a staircase shifts
  /// towards the outcome it got less often (`freshWhenLate`: whether the second request starts
  /// fresh work when it comes late), then `afterRound` on the second thread; then checks the
  /// invariants of the whole run.
  private static func race(
    seed: UInt64, rounds: Int, budget: Duration, name: String,
    prepare: @escaping @Sendable (OperationQueueManager, EventInvariants, Int) -> ManualOperation?,
    first:
      @escaping @Sendable (OperationQueueManager, EventInvariants, ManualOperation?, Int) ->
      Void,
    second: @escaping RaceStep,
    freshWhenLate: Bool = true,
    afterRound: @escaping @Sendable () -> Void = {}
  ) async -> RaceResult {
    let manager = OperationQueueManager(name: name, maxConcurrentOperationCount: 8)
    let invariants = EventInvariants(manager)
    let deadline = ContinuousClock.now + budget
    let barrier = SpinBarrier(parties: 2)
    // The round's prepared operation, or nil in the slot's second field once time is up.
    let current = Locked<(working: ManualOperation?, goOn: Bool)>((nil, true))
    let delay = Atomic<Int>(0)
    let roundsRun = AsyncCounter()
    let freshRequests = AsyncCounter()
    let threadsDone = AsyncCounter()

    Thread.detachNewThread {
      var rng = SeededGenerator(seed: seed ^ 0xF1F5)
      for round in 0..<rounds {
        let goOn = ContinuousClock.now < deadline
        let working = goOn ? prepare(manager, invariants, round) : nil
        current.withLock { $0 = (working, goOn) }
        barrier.arrive(round: 2 * round + 1)
        guard goOn else { break }
        spin(-delay.load(ordering: .relaxed) + Int.random(in: 0..<32, using: &rng))
        first(manager, invariants, working, round)
        barrier.arrive(round: 2 * round + 2)
      }
      threadsDone.increment()
    }
    Thread.detachNewThread {
      var rng = SeededGenerator(seed: seed ^ 0x5EC0)
      var step = 16
      var lastWasFresh = false
      for round in 0..<rounds {
        barrier.arrive(round: 2 * round + 1)
        let (working, goOn) = current.withLock { $0 }
        guard goOn else { break }
        spin(delay.load(ordering: .relaxed) + Int.random(in: 0..<32, using: &rng))
        let isFresh = second(manager, invariants, working, round)
        barrier.arrive(round: 2 * round + 2)
        afterRound()
        roundsRun.increment()
        if isFresh { freshRequests.increment() }
        step = isFresh == lastWasFresh ? min(step * 2, 1_024) : max(step / 2, 2)
        lastWasFresh = isFresh
        // Move the second racer towards the outcome it got less often.
        let later = isFresh != freshWhenLate
        let next = delay.load(ordering: .relaxed) + (later ? step : -step)
        delay.store(min(max(next, -20_000), 20_000), ordering: .relaxed)
      }
      threadsDone.increment()
    }
    let finishedInTime = await threadsDone.wait(untilAtLeast: 2, timeout: budget + .seconds(10))
    var problems = await invariants.verify(manager, timeout: .seconds(30))
    if !(await invariants.log.stop(timeout: .seconds(30))) {
      problems.append("the event log's subscription did not end")
    }
    return RaceResult(
      finishedInTime: finishedInTime, problems: problems,
      summary: "\(roundsRun.value) rounds, \(freshRequests.value) fresh requests, "
        + "\(problems.count) violations")
  }
}
