import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import Synchronization
import TestSupport
import Testing

/// The races at the edges of the contract: admission against `cancelAllOperations()`, a join
/// against the finish of the work it joins, a join against the departure of the work's last
/// caller, and two first enqueues of one key, each checked by ``EventInvariants``; and two
/// first requests for one foreign operation. Seeded (`RELIABILITY_SEED` replays a run; each
/// prints its seed) and bounded by a number of rounds and by time; every wait has a deadline
/// that fails the test instead of hanging it.
@Suite(.serialized) struct EdgeRaceStressTests {
  /// A width-2 manager, 30 tasks awaiting operations that never finish on their own (some
  /// sharing keys), and `cancelAllOperations()` called the moment the last task's `enqueued` or
  /// `joined` event arrives: every operation admitted before it must end cancelled, so every
  /// task gets `CancellationError`. One that the sweep misses starts and never ends.
  @Test(.timeLimit(.minutes(2)))
  func cancelAllRacingAdmissionCancelsEveryAdmittedOperation() async throws {
    let (seed, roundsRun) = await runStressRounds(budget: .seconds(8), maximumRounds: 1_000) {
      await Self.admissionAgainstCancelAll(seed: $0, round: $1)
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
    result.report("join vs finish", seed: seed)
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
      afterRound: { Self.releaseAll(in: requests) })
    result.report("two first enqueues", seed: seed)
  }

  /// The last caller awaiting work leaves (its task is cancelled) at the moment a request for
  /// the same key arrives, from two threads lined up by a barrier. The request either joins
  /// before the caller has left, and keeps the work going, or starts fresh work after: it is
  /// never handed the cancellation of the work it joined. (It was, about once in a hundred
  /// such races, while the work's cancellation came a step after the caller's departure.)
  @Test(.timeLimit(.minutes(2)))
  func lastCallerLeavingRacingAJoinNeverHandsTheJoinerCancellation() async throws {
    let seed = StressSettings.seed()
    let leavers = Locked<[Int: Task<Int, any Error>]>([:])
    let inFlight = Locked<[ManualOperation]>([])
    let cancelledRequests = AsyncCounter()
    let race = await Self.race(
      seed: seed, rounds: 3_000, budget: StressBudget.scaled(.milliseconds(2_500)),
      name: "edge.leaveVsJoin",
      prepare: { manager, invariants, round in
        let working = ManualOperation(key: round, ending: .whenReleased)
        invariants.track(working)
        let leaver = Task { try await manager.perform(working) }
        // Its caller is registered before the queue starts it.
        _ = working.started.block(timeout: .seconds(30))
        leavers.withLock { $0[round] = leaver }
        inFlight.withLock { $0.append(working) }
        return working
      },
      first: { _, _, _, round in
        leavers.withLock { $0[round] }?.cancel()
      },
      second: { manager, invariants, _, round in
        let request = ManualOperation(key: round, ending: .returning(2))
        inFlight.withLock { $0.append(request) }
        let admitted = invariants.enqueue(request, on: manager) { result in
          if case .failure(is CancellationError) = result { cancelledRequests.increment() }
        }
        return admitted === request
      },
      // Work the request joined goes on until released; fresh work has ended by itself.
      afterRound: { Self.releaseAll(in: inFlight) })
    race.report("last caller leaving vs join", seed: seed)
    #expect(
      cancelledRequests.value == 0,
      "seed \(seed): \(cancelledRequests.value) requests got the cancellation of work they joined")
    for leaver in leavers.withLock({ $0.values }) {
      switch await result(of: leaver, within: .seconds(30)) {
      case .failure(is CancellationError)?:
        break
      case .success(1)?:
        // Its task had not yet reached its cancellation handler when the joined work ended.
        break
      case let other:
        Issue.record("seed \(seed): a leaving caller got \(String(describing: other))")
      }
    }
  }

  /// Two requests for the same legacy `Operation` instance (no key: the instance is the key),
  /// made at the same moment from two threads lined up by a barrier, the second one's offset
  /// swept across the first's: one request runs the operation, the other joins it, and both
  /// get its outcome. The operation runs once: the second request finds the adapter the first
  /// installed for the instance, and joins or admits it.
  @Test(.timeLimit(.minutes(2)))
  func twoRequestsForOneLegacyOperationBothGetItsOutcome() async throws {
    let manager = OperationQueueManager(name: "edge.foreignPair", maxConcurrentOperationCount: 8)
    let budget = StressBudget.scaled(.milliseconds(2_500))
    let deadline = ContinuousClock.now + budget
    let barrier = SpinBarrier(parties: 2)
    let current = Locked<(operation: BlockOperation?, goOn: Bool)>((nil, true))
    let rounds = AsyncCounter()
    let problems = Locked<[String]>([])
    let threadsDone = AsyncCounter()
    // Each round's two completions; the first thread waits for both before the next round.
    let delivered = DispatchSemaphore(value: 0)
    let runs = AsyncCounter()

    Thread.detachNewThread {
      for round in 0..<5_000 {
        let goOn = ContinuousClock.now < deadline
        let operation = goOn ? BlockOperation { runs.increment() } : nil
        current.withLock { $0 = (operation, goOn) }
        barrier.arrive(round: 2 * round + 1)
        guard let operation else { break }
        spin(256)
        manager.enqueue(operation) { _ in delivered.signal() }
        barrier.arrive(round: 2 * round + 2)
        let both =
          delivered.wait(timeout: .now() + 10) == .success
          && delivered.wait(timeout: .now() + 10) == .success
        guard both else {
          problems.withLock { $0.append("round \(round): a request never got the outcome") }
          current.withLock { $0.goOn = false }
          break
        }
        rounds.increment()
      }
      threadsDone.increment()
    }
    Thread.detachNewThread {
      for round in 0..<5_000 {
        barrier.arrive(round: 2 * round + 1)
        let (operation, goOn) = current.withLock { $0 }
        guard goOn, let operation else { break }
        // From well before the first request to well after it, a step per round.
        spin(16 * (round % 32))
        manager.enqueue(operation) { _ in delivered.signal() }
        barrier.arrive(round: 2 * round + 2)
      }
      threadsDone.increment()
    }
    let finishedInTime = await threadsDone.wait(untilAtLeast: 2, timeout: budget + .seconds(30))
    #expect(finishedInTime, "the racing threads did not finish in time")
    for problem in problems.withLock({ $0 }).prefix(10) { Issue.record("\(problem)") }
    #expect(runs.value == rounds.value, "an operation ran twice or never")
    print("two requests for one foreign operation: \(rounds.value) rounds")
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

    /// Records the race's failures as issues and prints its summary under `label`.
    func report(
      _ label: String, seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation
    ) {
      #expect(
        finishedInTime, "seed \(seed): the racing threads did not finish in time",
        sourceLocation: sourceLocation)
      for problem in problems.prefix(10) {
        Issue.record("seed \(seed): \(problem)", sourceLocation: sourceLocation)
      }
      print("\(label): seed \(seed), \(summary)")
    }
  }

  /// Releases (with 1) and forgets every operation `operations` holds: a round's end.
  private static func releaseAll(in operations: Locked<[ManualOperation]>) {
    let round = operations.withLock { operations in
      defer { operations.removeAll() }
      return operations
    }
    for operation in round { operation.release(1) }
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
