import Dispatch
import Foundation
import LockedValue
import OperationCore
import Synchronization
import TestSupport
import Testing

/// How a stress operation finishes: in `main()`, shortly after on another thread, or only
/// when someone finishes or cancels it.
enum StressMode: CaseIterable {
  case finishInMain
  case finishSoon
  case finishWhenTold
}

/// Shared bookkeeping of one stress run.
final class StressLedger: Sendable {
  private struct State {
    var operations: [ManualOperation] = []
    /// The value each operation finishes with.
    var values: [ObjectIdentifier: Int] = [:]
    /// Every operation an enqueue returned: the ones that went into the queue.
    var admitted: [ObjectIdentifier: ManualOperation] = [:]
    /// The work each operation joined, on any of its enqueues, and follows: unless it was
    /// finished (or cancelled) first, or claimed by another enqueue, it settles with the outcome
    /// of whichever of them settles first. (Two threads may enqueue one instance at once, and
    /// one may join work the other's enqueue did not, so every join counts, whatever order
    /// the threads record them in.)
    var followed: [ObjectIdentifier: Set<ObjectIdentifier>] = [:]
    /// Per waiter: how many times its completion ran, the value it received, and the
    /// operation it waits on.
    var deliveries: [Int] = []
    var receivedValues: [Int?] = []
    var waitedOn: [ObjectIdentifier?] = []
  }

  private let state = Locked(State())
  private let nextValue = Atomic<Int>(0)
  /// Checks the run's events.
  let invariants: EventInvariants

  init(_ manager: OperationQueueManager) {
    invariants = EventInvariants(manager)
  }

  func makeOperation(key: Int?, mode: StressMode) -> ManualOperation {
    let value = nextValue.wrappingAdd(1, ordering: .relaxed).newValue
    let ending: ManualOperation.Ending =
      switch mode {
      case .finishInMain: .returning(value)
      case .finishSoon: .returningSoon(value, microseconds: 0)
      case .finishWhenTold: .whenReleased
      }
    let operation = ManualOperation(key: key, ending: ending)
    invariants.track(operation)
    // Published before it is enqueued, so other threads can race cancel/finish with enqueue.
    state.withLock {
      $0.operations.append(operation)
      $0.values[ObjectIdentifier(operation)] = value
    }
    return operation
  }

  /// The value `operation` finishes with.
  func value(of operation: ManualOperation) -> Int {
    state.withLock { $0.values[ObjectIdentifier(operation)] ?? -1 }
  }

  /// A recent operation most of the time, any operation otherwise.
  func randomOperation(using rng: inout SeededGenerator) -> ManualOperation? {
    let anyAge = Int.random(in: 0..<3, using: &rng) == 0
    return state.withLock { state in
      guard !state.operations.isEmpty else { return nil }
      let oldest = anyAge ? 0 : max(0, state.operations.count - 64)
      return state.operations[Int.random(in: oldest..<state.operations.count, using: &rng)]
    }
  }

  func makeWaiter() -> Int {
    state.withLock { state in
      state.deliveries.append(0)
      state.receivedValues.append(nil)
      state.waitedOn.append(nil)
      return state.deliveries.count - 1
    }
  }

  func waiter(_ waiter: Int, waitsOn operation: ConcurrentOperation<Int, any Error>) {
    state.withLock { $0.waitedOn[waiter] = ObjectIdentifier(operation) }
  }

  /// `operation` was enqueued, and `admitted` does its work: itself, or the work it joined.
  func enqueued(_ operation: ManualOperation, as admitted: ConcurrentOperation<Int, any Error>) {
    guard let admitted = admitted as? ManualOperation else { return }
    state.withLock { state in
      state.admitted[ObjectIdentifier(admitted)] = admitted
      if admitted !== operation {
        state.followed[ObjectIdentifier(operation), default: []].insert(ObjectIdentifier(admitted))
      }
    }
  }

  func deliver(_ result: Result<Int, any Error>, to waiter: Int) {
    state.withLock { state in
      state.deliveries[waiter] += 1
      if case .success(let value) = result { state.receivedValues[waiter] = value }
    }
  }

  var operations: [ManualOperation] { state.withLock { $0.operations } }
  var admittedOperations: [ManualOperation] { state.withLock { Array($0.admitted.values) } }
  var deliveries: [Int] { state.withLock { $0.deliveries } }
  var totalDeliveries: Int { state.withLock { $0.deliveries.reduce(0, +) } }

  /// Waiters that received a value other than their operation's (or, for a dropped operation,
  /// the value of work it followed).
  var wrongValues: [String] {
    state.withLock { state in
      state.receivedValues.indices.compactMap { waiter in
        guard let received = state.receivedValues[waiter] else { return nil }
        let operation = state.waitedOn[waiter]
        let followed = operation.flatMap { state.followed[$0] } ?? []
        let expected = ([operation].compactMap { $0 } + followed.sorted())
          .compactMap { state.values[$0] }
        guard !expected.contains(received) else { return nil }
        return "waiter \(waiter) got \(received), expected one of \(expected)"
      }
    }
  }
}

/// Bounded races and random stress from threads, one at a time (each wants both processors),
/// their events checked by ``EventInvariants``.
@Suite(.serialized) struct ThreadedActionStressTests {
  @Test func randomConcurrentActionsDeliverEveryCompletionExactlyOnce() async throws {
    let seed = StressSettings.seed(alias: "STRESS_SEED")
    let threads = 4
    let actionsPerThread = 1_500
    let keys = 12
    let deadline = ContinuousClock.now + StressBudget.scaled(.seconds(4))

    let manager = OperationQueueManager(name: "stress", maxConcurrentOperationCount: 4)
    let ledger = StressLedger(manager)
    let callbackQueue = DispatchQueue(label: "stress.callbacks", attributes: .concurrent)
    let actionsRun = Atomic<Int>(0)
    let finishedThreads = Recorder<Int>()

    for thread in 0..<threads {
      Thread.detachNewThread {
        var rng = SeededGenerator(seed: seed &+ UInt64(thread) &* 0x1000_0000_01B3)
        for _ in 0..<actionsPerThread where ContinuousClock.now < deadline {
          actionsRun.add(1, ordering: .relaxed)
          Self.performRandomAction(
            manager: manager, ledger: ledger, keys: keys, callbackQueue: callbackQueue,
            rng: &rng)
        }
        finishedThreads.record(thread)
      }
    }
    #expect(await finishedThreads.wait(forCount: threads, timeout: .seconds(30)), "seed \(seed)")

    // Let everything end: resume the queue and finish every piece of work still open.
    manager.isSuspended = false
    for operation in ledger.operations { operation.release(ledger.value(of: operation)) }
    let drained = await becomesIdle(manager, within: .seconds(30))
    let waiters = ledger.deliveries.count
    let delivered = await eventually { ledger.totalDeliveries >= waiters }

    #expect(drained, "manager did not drain; seed \(seed)")
    #expect(delivered, "missing completions; seed \(seed)")
    #expect(manager.isIdle, "seed \(seed)")
    #expect(manager.outstandingOperationCount == 0, "seed \(seed)")
    let deliveries = ledger.deliveries
    let wrongCounts = deliveries.indices.filter { deliveries[$0] != 1 }
    #expect(
      wrongCounts.isEmpty,
      "waiters not called exactly once: \(wrongCounts.prefix(10).map { "\($0)×\(deliveries[$0])" }); seed \(seed)"
    )
    #expect(ledger.wrongValues.isEmpty, "\(ledger.wrongValues.prefix(5)); seed \(seed)")
    let ranTwice = ledger.operations.filter { $0.mainCallCount > 1 }
    #expect(ranTwice.isEmpty, "\(ranTwice.count) operations ran main() twice; seed \(seed)")
    let unfinished = ledger.admittedOperations.filter { !$0.isFinished }
    #expect(unfinished.isEmpty, "\(unfinished.count) enqueued operations unfinished; seed \(seed)")
    let stale = (0..<keys).compactMap { key in
      manager.inFlightOperation(
        for: CoalescingKey(operationType: ManualOperation.self, valueType: Int.self, base: key))
    }
    #expect(stale.isEmpty, "\(stale.count) stale index entries; seed \(seed)")
    await ledger.invariants.expectValid(manager, context: "seed \(seed)")
    #expect(actionsRun.load(ordering: .relaxed) > 0)
    print(
      "stress: seed \(seed), \(actionsRun.load(ordering: .relaxed)) actions,"
        + " \(ledger.operations.count) operations, \(waiters) waiters")
  }

  /// The one window where an index entry can be replaced before its owner's removal runs: the
  /// old operation has settled (cancelled) but its manager has not yet dropped it from the
  /// index when a new request for the same key registers fresh work.
  @Test func racingCancelAndRequestNeverLoseTheNewerIndexEntry() async throws {
    let manager = OperationQueueManager(name: "coalescing.race")
    let invariants = EventInvariants(manager)
    manager.isSuspended = true
    let maximumRounds = 10_000
    let deadline = ContinuousClock.now + StressBudget.scaled(.milliseconds(800))
    let barrier = SpinBarrier(parties: 2)
    // The leader's operation for the round, or nil when the time is up.
    let current = Locked<ManualOperation?>(nil)
    // A staircase keeps rounds on the boundary between "the request joins" (it came before the
    // cancel) and "the request starts fresh work" (after): a positive delay holds the request
    // back, a negative one the cancel.
    let delay = Atomic<Int>(0)
    let violations = Recorder<String>()
    let freshRequests = AsyncCounter()
    let rounds = AsyncCounter()
    let done = Recorder<Int>()

    Thread.detachNewThread {
      var rng = SeededGenerator(seed: 0xCA9CE1)
      for round in 0..<maximumRounds {
        let old =
          ContinuousClock.now < deadline ? ManualOperation(key: round, ending: .returning(0)) : nil
        if let old { invariants.enqueue(old, on: manager) }
        current.withLock { $0 = old }
        barrier.arrive(round: 2 * round + 1)
        guard let old else { break }
        spin(-delay.load(ordering: .relaxed) + Int.random(in: 0..<16, using: &rng))
        old.cancel()
        barrier.arrive(round: 2 * round + 2)
      }
      done.record(0)
    }
    Thread.detachNewThread {
      var rng = SeededGenerator(seed: 0x5EED)
      var step = 16
      var lastWasFresh = false
      for round in 0..<maximumRounds {
        barrier.arrive(round: 2 * round + 1)
        guard let old = current.withLock({ $0 }) else { break }
        spin(delay.load(ordering: .relaxed) + Int.random(in: 0..<16, using: &rng))
        let request = ManualOperation(key: round, ending: .returning(1))
        let admitted = invariants.enqueue(request, on: manager)
        barrier.arrive(round: 2 * round + 2)
        // Both steps are done: `old` is cancelled, whichever came first.
        rounds.increment()
        let isFresh = admitted === request
        step = isFresh == lastWasFresh ? min(step * 2, 1_024) : max(step / 2, 2)
        lastWasFresh = isFresh
        let next = delay.load(ordering: .relaxed) + (isFresh ? -step : step)
        delay.store(min(max(next, -20_000), 20_000), ordering: .relaxed)
        let indexed = manager.inFlightOperation(for: request.coalescingKey!)
        if isFresh {
          freshRequests.increment()
          if indexed !== request { violations.record("round \(round): fresh work not indexed") }
        } else if admitted === old {
          if indexed != nil { violations.record("round \(round): cancelled work still indexed") }
        } else {
          violations.record("round \(round): joined an unrelated operation")
        }
      }
      done.record(1)
    }

    #expect(await done.wait(forCount: 2, timeout: .seconds(30)))
    #expect(
      violations.values.isEmpty, "\(violations.count) violations: \(violations.values.prefix(5))")
    #expect(rounds.value > 0)
    print("coalescing race: \(rounds.value) rounds, \(freshRequests.value) started fresh work")
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
    await invariants.expectValid(manager)
  }

  private static func performRandomAction(
    manager: OperationQueueManager, ledger: StressLedger, keys: Int,
    callbackQueue: DispatchQueue, rng: inout SeededGenerator
  ) {
    let mode: StressMode =
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<4: .finishInMain
      case 4..<8: .finishSoon
      default: .finishWhenTold
      }
    let queue: CallbackQueue? = Bool.random(using: &rng) ? nil : .dispatch(callbackQueue)
    switch Int.random(in: 0..<100, using: &rng) {
    case 0..<40:  // enqueue with a key: fresh work or a join
      let operation = ledger.makeOperation(key: Int.random(in: 0..<keys, using: &rng), mode: mode)
      enqueue(operation, manager: manager, ledger: ledger, callbackQueue: queue)
    case 40..<48:  // enqueue without a key
      let operation = ledger.makeOperation(key: nil, mode: mode)
      enqueue(operation, manager: manager, ledger: ledger, callbackQueue: queue)
    case 48..<55:  // enqueue an existing instance again
      guard let operation = ledger.randomOperation(using: &rng) else { return }
      enqueue(operation, manager: manager, ledger: ledger, callbackQueue: queue)
    case 55..<63:  // wait on an existing operation directly
      guard let operation = ledger.randomOperation(using: &rng) else { return }
      let waiter = ledger.makeWaiter()
      ledger.waiter(waiter, waitsOn: operation)
      operation.addCompletion(on: queue) { ledger.deliver($0, to: waiter) }
    case 63..<78:  // cancel
      ledger.randomOperation(using: &rng)?.cancel()
    case 78..<95:  // finish from outside
      guard let operation = ledger.randomOperation(using: &rng) else { return }
      operation.release(ledger.value(of: operation))
    case 95..<97:
      ledger.invariants.cancelAll(manager, othersMaySettle: true)
    default:
      manager.isSuspended = Bool.random(using: &rng)
    }
  }

  private static func enqueue(
    _ operation: ManualOperation, manager: OperationQueueManager, ledger: StressLedger,
    callbackQueue: CallbackQueue?
  ) {
    let waiter = ledger.makeWaiter()
    let admitted = manager.enqueue(operation, callbackQueue: callbackQueue) {
      ledger.deliver($0, to: waiter)
    }
    ledger.waiter(waiter, waitsOn: admitted)
    ledger.enqueued(operation, as: admitted)
  }
}
