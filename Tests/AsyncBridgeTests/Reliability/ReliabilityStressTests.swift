import AsyncBridge
import Dispatch
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Random interleavings of every action the layer offers, from several threads and tasks at
/// once: enqueue, joins by completion handler and by `await`, Task cancellation,
/// `operation.cancel()`, cancel-all, suspend/resume, timeouts, finishing from other threads,
/// re-enqueueing an operation already in the queue, idle waits, awaiting callers' abandonment
/// policies (`whenAbandoned:` finish and linger) and `forget(key:)`.
///
/// After every round: every waiter got exactly one outcome, the right one; no operation was
/// added to a queue twice or ran twice; no operation reported finished unless its queue had
/// started it; the queue drained; each `finished` event counts exactly the callers that
/// received the outcome; and everything the round created was freed.
///
/// Each run prints its seed. To replay a failing round, copy the environment from its failure
/// message: `RELIABILITY_SEED=… RELIABILITY_ROUND=… swift test --filter ReliabilityStressTests`.
@Suite(.serialized) struct ReliabilityStressTests {
  // MARK: Deterministic: each invariant, and the probes the random rounds rely on

  @Test func queueProbeMarksEveryWayAQueueStartsAnOperationAndNothingElse() async throws {
    let marker = QueueThreadMarker(label: "reliability.probe")
    let manager = marker.makeManager(name: "reliability.probe", maxConcurrentOperationCount: 4)
    manager.isSuspended = true
    let ran = ProbedOperation(marker, serial: 0, ending: .inMain)
    let cancelledPending = ProbedOperation(marker, serial: 1, ending: .whenReleased)
    let settledDuringDelivery = ProbedOperation(marker, serial: 2, ending: .whenReleased)
    let handlerEntered = Gate()
    let handlerMayReturn = Gate()
    manager.enqueue(ran)
    manager.enqueue(cancelledPending)
    manager.enqueue(settledDuringDelivery) { _ in
      // Holds the delivery open on the cancelling thread while the queue starts the operation.
      handlerEntered.open()
      _ = handlerMayReturn.block()
    }
    cancelledPending.cancel()
    // On a queue of its own, not the global pool: the handler above blocks this thread, and
    // on a one-core machine a blocked pool thread would hold the whole pool.
    DispatchQueue(label: "reliability.probe.canceller").async { settledDuringDelivery.cancel() }
    #expect(await handlerEntered.wait())

    manager.isSuspended = false
    // Started while its cancellation is still being delivered: marked, not yet finished.
    #expect(await eventually { settledDuringDelivery.probe.startedByQueue })
    #expect(!settledDuringDelivery.isFinished)
    handlerMayReturn.open()
    #expect(await becomesIdle(manager))
    for operation in [ran, cancelledPending, settledDuringDelivery] {
      #expect(operation.isFinished)
      #expect(operation.probe.startedByQueue, "\(operation.name ?? "?")")
      #expect(operation.probe.mainCallsOffQueue == 0)
    }
    #expect(ran.probe.mainCalls == 1)
    #expect(cancelledPending.probe.mainCalls == 0)
    #expect(settledDuringDelivery.probe.mainCalls == 0)

    // Started by hand, outside any queue: it finishes, and the probe tells.
    let byHand = ProbedOperation(marker, serial: 3, ending: .inMain)
    byHand.start()
    #expect(byHand.isFinished)
    #expect(!byHand.probe.startedByQueue)
    #expect(byHand.probe.mainCallsOffQueue == 1)
  }

  @Test func enqueueingOneOperationFromManyThreadsAtOnceAddsItToItsQueueOnce() async throws {
    let marker = QueueThreadMarker(label: "reliability.once")
    let manager = marker.makeManager(name: "reliability.once", maxConcurrentOperationCount: 2)
    manager.isSuspended = true
    let log = EventLog(manager)
    let operation = ProbedOperation(marker, serial: 7, key: 1, ending: .whenReleased)
    let calls = AsyncCounter()
    let handlers = (0..<8).map { _ in
      StressHandler(origin: .again, ownSerial: 7, usesCallbackQueue: false, calls: calls)
    }
    let working = Locked<[ObjectIdentifier]>([])
    DispatchQueue.concurrentPerform(iterations: 12) { index in
      // Eight callers wait with a handler, four without a waiter; all of them race.
      let admitted =
        if index < 8 {
          manager.enqueue(operation) { handlers[index].deliver($0) }
        } else {
          manager.enqueue(operation)
        }
      working.withLock { $0.append(ObjectIdentifier(admitted)) }
    }
    #expect(working.withLock { $0 }.allSatisfy { $0 == ObjectIdentifier(operation) })
    #expect(manager.outstandingOperationCount == 1)

    manager.isSuspended = false
    #expect(await eventually { operation.probe.mainCalls == 1 })
    operation.release()
    #expect(await calls.wait(untilAtLeast: 8))
    #expect(await becomesIdle(manager))
    #expect(handlers.allSatisfy { $0.results.count == 1 && (try? $0.results[0].get()) == 7 })
    #expect(await log.flush(manager))
    #expect(log.events(.enqueued, of: operation).count == 1)
    #expect(log.events(.started, of: operation).count == 1)
    #expect(log.events(.finished(.success), of: operation).map(\.callerCount) == [8])
    #expect(operation.probe.mainCalls == 1)

    // Once it has finished, enqueueing it again hands its value over inside the call.
    let late = StressHandler(origin: .again, ownSerial: 7, usesCallbackQueue: false, calls: calls)
    late.willEnqueue()
    let admitted = manager.enqueue(operation) { late.deliver($0) }
    late.didEnqueue(working: (admitted as? ProbedOperation)?.serial)
    #expect(late.wasDeliveredAtOnce)
    #expect(late.workingSerial == 7)
    #expect(manager.isIdle)
    #expect(log.events(.enqueued, of: operation).count == 1)
  }

  /// A request that joined other work never runs, and no event names it. Held by the caller
  /// (here, the test), it finishes with the work it joined, so whatever depends on it or waits
  /// for it goes on.
  @Test func requestThatJoinedOtherWorkNeverRunsAndFinishesWithIt() async throws {
    let marker = QueueThreadMarker(label: "reliability.joiner")
    let manager = marker.makeManager(name: "reliability.joiner", maxConcurrentOperationCount: 2)
    let log = EventLog(manager)
    let working = ProbedOperation(marker, serial: 0, key: 1, ending: .whenReleased)
    let awaitedJoiner = ProbedOperation(marker, serial: 1, key: 1, ending: .inMain)
    let handlerJoiner = ProbedOperation(marker, serial: 2, key: 1, ending: .inMain)
    let results = Locked<[Result<Int, any Error>]>([])
    manager.enqueue(working) { result in results.withLock { $0.append(result) } }
    let task = Task { try await manager.perform(awaitedJoiner) }
    #expect(await log.wait(for: .joined, of: working))
    #expect(
      manager.enqueue(handlerJoiner) { result in results.withLock { $0.append(result) } }
        === working)
    #expect(await eventually { working.probe.mainCalls == 1 })

    working.release()
    await expectValue(0, from: task)
    #expect(await becomesIdle(manager))
    #expect(results.withLock { $0 }.compactMap { try? $0.get() } == [0, 0])
    #expect(await log.flush(manager))
    #expect(log.events(.finished(.success), of: working).map(\.callerCount) == [3])
    for joiner in [awaitedJoiner, handlerJoiner] {
      #expect(await eventually { joiner.isFinished })
      #expect(!joiner.isExecuting)
      #expect(joiner.result.map { try? $0.get() } == 0)
      #expect(joiner.probe.mainCalls == 0)
      #expect(!joiner.probe.startedByQueue)
      #expect(log.kinds(of: joiner).isEmpty)
    }
  }

  @Test(arguments: [false, true])
  func finishedEventCountsOnlyTheWaitersThatReceivedTheOutcome(timesOut: Bool) async throws {
    let marker = QueueThreadMarker(label: "reliability.count")
    let manager = marker.makeManager(name: "reliability.count", maxConcurrentOperationCount: 1)
    // Suspended while the callers line up: a timeout counts from the start.
    manager.isSuspended = true
    let log = EventLog(manager)
    let working = ProbedOperation(
      marker, serial: 0, key: 1, ending: timesOut ? .never : .whenReleased,
      timeout: timesOut ? .milliseconds(50) : nil)
    let handlerResult = Locked<Result<Int, any Error>?>(nil)
    manager.enqueue(working) { result in handlerResult.withLock { $0 = result } }
    let staying = Task {
      try await manager.perform(ProbedOperation(marker, serial: 1, key: 1, ending: .inMain))
    }
    let leaving = Task {
      try await manager.perform(ProbedOperation(marker, serial: 2, key: 1, ending: .inMain))
    }
    #expect(await log.wait(for: .joined, of: working, count: 2))
    leaving.cancel()
    await expectCancellation(of: leaving)
    #expect(!working.isCancelled)

    manager.isSuspended = false
    #expect(await eventually { working.probe.mainCalls == 1 })
    if !timesOut { working.release() }
    let stayed = await result(of: staying)
    #expect(await becomesIdle(manager))
    #expect(await log.flush(manager))
    let completion: OperationEvent.Completion = timesOut ? .timedOut : .success
    // The handler and the task that stayed received the outcome; the one that left did not.
    #expect(log.events(.finished(completion), of: working).map(\.callerCount) == [2])
    if timesOut {
      #expect((try? stayed?.get()) == nil)
      #expect(handlerResult.withLock { $0 }.map { StressOutcome($0) } == .timedOut(serial: 0))
      #expect(stayed.map { StressOutcome($0) } == .timedOut(serial: 0))
      #expect(working.isCancelled)
    } else {
      #expect(handlerResult.withLock { $0 }.map { StressOutcome($0) } == .value(serial: 0))
      #expect(stayed.map { StressOutcome($0) } == .value(serial: 0))
    }
  }

  // MARK: Random interleavings

  @Test(.timeLimit(.minutes(3)))
  func randomInterleavingsOfEveryActionKeepEveryInvariant() async throws {
    let settings = StressSettings.fromEnvironment()
    let started = ContinuousClock.now
    let stopStartingRounds = started + settings.budget
    var totals = StressRoundStats()
    var roundsRun = 0
    var failedRound: Int?
    var handlers: [StressHandler] = []
    print(
      "reliability stress: seed \(settings.seed) (replay with RELIABILITY_SEED=\(settings.seed))")

    for round in settings.rounds {
      guard roundsRun < settings.minimumRounds || ContinuousClock.now < stopStartingRounds else {
        break
      }
      let report = await Self.run(seed: settings.seed, round: round, hangGuard: settings.hangGuard)
      roundsRun += 1
      totals.add(report.stats)
      handlers += report.handlers
      if !report.problems.isEmpty {
        for problem in report.problems.prefix(12) {
          Issue.record("\(report.context): \(problem)")
        }
        if report.problems.count > 12 {
          Issue.record("\(report.context): \(report.problems.count - 12) more problems")
        }
        failedRound = round
        break
      }
    }

    // Seconds after their rounds: a handler called a second time, late, shows here.
    let calledTwice = handlers.filter { $0.results.count != 1 }
    #expect(
      calledTwice.isEmpty,
      "seed \(settings.seed): \(calledTwice.count) handlers not called exactly once in the end")
    #expect(roundsRun >= settings.minimumRounds || failedRound != nil, "seed \(settings.seed)")
    let completions = totals.completions.map { "\($0.key): \($0.value)" }.sorted()
    print(
      "reliability stress: seed \(settings.seed), \(roundsRun) rounds, \(totals.actions) actions, "
        + "\(totals.operations) operations (\(totals.enqueued) enqueued, \(totals.joins) joins), "
        + "\(totals.handlers) handlers, \(totals.awaiters) awaiting tasks, "
        + "\(totals.idleWaits) idle waits, finished \(completions), "
        + "wall \(ContinuousClock.now - started)")
  }

  /// What one round found.
  struct RoundReport {
    var context: String
    var problems: [String]
    var stats: StressRoundStats
    var handlers: [StressHandler]
  }

  /// Runs one round, checks it, then checks that everything it created was freed.
  static func run(seed: UInt64, round: Int, hangGuard: Duration) async -> RoundReport {
    let (report, survivors) = await runAndVerify(seed: seed, round: round, hangGuard: hangGuard)
    var problems = report.problems
    let freed = await eventually(within: .seconds(30)) {
      survivors.manager.isFreed && survivors.operations.allSatisfy(\.isFreed)
    }
    if !freed {
      leakedRoundMarkers.withLock { $0.append(survivors.marker) }
      let operations = survivors.operations.filter { !$0.isFreed }.count
      problems.append(
        "not freed after the round: manager \(!survivors.manager.isFreed), "
          + "\(operations) of \(survivors.operations.count) operations")
    }
    return RoundReport(
      context: report.context, problems: problems, stats: report.stats, handlers: report.handlers)
  }

  /// Weak references to what a round created.
  private struct Survivors {
    var manager: WeakReference<OperationQueueManager>
    var operations: [WeakReference<ProbedOperation>]
    /// Kept strong: the round's operation queue runs on it until it is freed.
    var marker: QueueThreadMarker
  }

  private static func runAndVerify(
    seed: UInt64, round: Int, hangGuard: Duration
  ) async -> (RoundReport, Survivors) {
    let stressRound = StressRound(seed: seed, round: round)
    let deadline = ContinuousClock.now + hangGuard
    var problems: [String] = []
    var stats = StressRoundStats()
    if !(await stressRound.runLanes(until: deadline)) {
      problems.append("hang: the lanes did not end within \(hangGuard)")
    } else if !(await stressRound.settle(until: deadline)) {
      problems.append("hang: the round did not settle: \(stressRound.hangReport())")
    } else {
      let manager = stressRound.manager
      if !(await stressRound.invariants.log.flush(manager, timeout: .seconds(30))) {
        problems.append("hang: the event stream did not deliver the flush marker")
      }
      // Idle again once the marker has left: its event comes before it is counted out.
      let idle = await completing(within: .seconds(30)) {
        (try? await manager.waitUntilIdle()) != nil
      }
      if idle != true { problems.append("hang: waitUntilIdle did not return") }
      if !(await stressRound.invariants.log.stop(timeout: .seconds(30))) {
        problems.append("hang: the event stream did not end when its task was cancelled")
      }
      if !(await eventually { !manager.events.hasSubscribers }) {
        problems.append("the event stream's subscription outlived its cancelled task")
      }
      let verified = await stressRound.verify()
      problems += verified.problems
      stats = verified.stats
    }
    if !problems.isEmpty { _ = await stressRound.invariants.log.stop(timeout: .seconds(1)) }
    let handlers = stressRound.state.withLock { $0.handlers }
    let survivors = Survivors(
      manager: WeakReference(stressRound.manager),
      operations: stressRound.state.withLock { $0.operations }.map { WeakReference($0) },
      marker: stressRound.marker)
    return (
      RoundReport(
        context: stressRound.context, problems: problems, stats: stats, handlers: handlers),
      survivors
    )
  }
}

extension ProbedOperation {
  /// A probed operation for the deterministic tests.
  convenience init(
    _ marker: QueueThreadMarker, serial: Int, key: Int? = nil, ending: Ending,
    timeout: Duration? = nil
  ) {
    self.init(
      serial: serial, key: key, ending: ending, fails: false, timeout: timeout, marker: marker)
  }
}
