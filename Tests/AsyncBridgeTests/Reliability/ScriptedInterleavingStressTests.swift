import AsyncBridge
import Dispatch
import Foundation
import LockedValue
import OperationCore
import Synchronization
import TestSupport
import Testing

/// Random interleavings of awaiting tasks, cancellation from every direction, suspension and
/// operations finishing on other threads, each round checked by ``EventInvariants``. Every run
/// prints its seed; set `ASYNCBRIDGE_STRESS_SEED` to replay one.
@Suite struct ScriptedInterleavingStressTests {
  /// The only value any operation with `key` produces, so joiners can check theirs.
  static func value(for key: Int) -> Int { 1_000 + key }

  /// Records every call of a completion handler, to check it is called exactly once.
  final class HandlerCalls: Sendable {
    private let results = Locked<[Result<Int, any Error>]>([])
    /// Counts the calls of every handler of a round, so the round can wait for them.
    private let roundCalls: AsyncCounter

    init(roundCalls: AsyncCounter) {
      self.roundCalls = roundCalls
    }

    var all: [Result<Int, any Error>] { results.withLock { $0 } }

    func record(_ result: Result<Int, any Error>) {
      results.withLock { $0.append(result) }
      roundCalls.increment()
    }
  }

  /// One scripted step of a round.
  enum Step {
    /// Starts participant `n`: an awaiting task, or a completion-handler caller.
    case spawn(Int)
    case cancelTask(Int)
    case cancelOperation(Int)
    case releaseOperationElsewhere(Int)
    case cancelAll
    case suspend
    case resume
    case yield
  }

  struct Totals {
    var rounds = 0
    var participants = 0
    var values = 0
    var cancellations = 0
    var steps = 0
    /// Every handler of every round, checked again once all rounds are over.
    var handlers: [HandlerCalls] = []

    mutating func add(_ other: Totals) {
      rounds += other.rounds
      participants += other.participants
      values += other.values
      cancellations += other.cancellations
      steps += other.steps
      handlers += other.handlers
    }
  }

  /// Set once any round fails, so the other lanes stop.
  final class Flag: Sendable {
    private let storage = Atomic<Bool>(false)
    var isSet: Bool { storage.load(ordering: .relaxed) }
    func set() { storage.store(true, ordering: .relaxed) }
  }

  static let keySpace = 3

  @Test func randomInterleavingsResumeEveryAwaiterExactlyOnceAndDrain() async throws {
    let seed = StressSettings.seed(alias: "ASYNCBRIDGE_STRESS_SEED")
    // Fewer under ThreadSanitizer, where each round takes several times longer.
    let rounds = StressBudget.isThreadSanitized ? 3_000 : 10_000
    let lanes = 4
    let budget = Duration.seconds(60)
    let deadline = ContinuousClock.now + budget
    let failed = Flag()
    let start = ContinuousClock.now

    let summary = await withTaskGroup(of: Totals.self) { group in
      for lane in 0..<lanes {
        group.addTask {
          var totals = Totals()
          for round in stride(from: lane, to: rounds, by: lanes) {
            // The budget bounds how many rounds start; each round's drain has a bound of its own.
            guard !failed.isSet, ContinuousClock.now < deadline else { break }
            let ok = await Self.runRound(round, seed: seed, totals: &totals)
            if !ok { failed.set() }
          }
          return totals
        }
      }
      return await group.reduce(into: Totals()) { $0.add($1) }
    }

    let wall = ContinuousClock.now - start
    print(
      "stress: seed \(seed), \(summary.rounds) interleavings, \(summary.participants) callers "
        + "(\(summary.values) values, \(summary.cancellations) cancellations), "
        + "\(summary.steps) scripted steps, wall \(wall)")
    // Every round ran, unless the budget ran out first (a loaded machine); then at least some.
    #expect(
      summary.rounds == rounds || (ContinuousClock.now >= deadline && summary.rounds > 0),
      "seed \(seed): only \(summary.rounds) of \(rounds) rounds")
    // Seconds after their rounds: a handler called twice, late, would show here.
    let miscalled = summary.handlers.filter { $0.all.count != 1 }
    #expect(miscalled.isEmpty, "seed \(seed): \(miscalled.count) handlers not called exactly once")
  }

  /// Runs one random round; records an issue and returns false if an invariant broke.
  static func runRound(
    _ round: Int, seed: UInt64, totals: inout Totals
  ) async -> Bool {
    var rng = SeededGenerator(seed: seed ^ (UInt64(round) &* 0xD1B5_4A32_D192_ED03))
    let context = "seed \(seed), round \(round)"
    let manager = OperationQueueManager(
      name: "stress", maxConcurrentOperationCount: Int.random(in: 1...3, using: &rng))
    manager.isSuspended = Bool.random(using: &rng)

    let participantCount = Int.random(in: 2...6, using: &rng)
    // Most participants await `perform`; some are legacy completion-handler callers.
    let isHandler = (0..<participantCount).map { _ in Int.random(in: 0..<5, using: &rng) == 0 }
    let roundCalls = AsyncCounter()
    let handlerCalls = (0..<participantCount).map { _ in HandlerCalls(roundCalls: roundCalls) }
    let keys = (0..<participantCount).map { _ in Int.random(in: 0..<keySpace, using: &rng) }
    let operations = keys.map { key in
      let value = Self.value(for: key)
      let ending: ManualOperation.Ending =
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: .returning(value)
        case 1: .returningSoon(value, microseconds: Int.random(in: 0...300, using: &rng))
        default: .whenReleased
        }
      return ManualOperation(key: key, ending: ending)
    }
    let invariants = EventInvariants(manager)
    let steps = script(participants: participantCount, using: &rng)

    var tasks: [Task<Int, any Error>?] = Array(repeating: nil, count: participantCount)
    for step in steps {
      switch step {
      case .spawn(let index) where isHandler[index]:
        invariants.enqueue(operations[index], on: manager, completion: handlerCalls[index].record)
      case .spawn(let index):
        let operation = operations[index]
        invariants.track(operation)
        tasks[index] = Task { try await manager.perform(operation) }
      case .cancelTask(let index):
        tasks[index]?.cancel()
      case .cancelOperation(let index):
        operations[index].cancel()
      case .releaseOperationElsewhere(let index):
        let operation = operations[index]
        let value = Self.value(for: keys[index])
        DispatchQueue.global().async { operation.release(value) }
      case .suspend:
        manager.isSuspended = true
      case .resume:
        manager.isSuspended = false
      case .cancelAll:
        invariants.cancelAll(manager, othersMaySettle: true)
      case .yield:
        await Task.yield()
      }
    }

    // Let everything end: resume the queue and release whatever waits for a release.
    manager.isSuspended = false
    for (operation, key) in zip(operations, keys) { operation.release(Self.value(for: key)) }

    let spawned = tasks
    guard
      let (awaited, drained) = await completing(
        within: .testTimeout,
        {
          var awaited: [Int: Result<Int, any Error>] = [:]
          for (index, task) in spawned.enumerated() {
            if let task { awaited[index] = await task.result }
          }
          let drained = (try? await manager.waitUntilIdle()) != nil
          return (awaited, drained)
        })
    else {
      Issue.record("\(context): hang: awaiting tasks or the manager did not finish in time")
      return false
    }
    // An operation reports finished only after its outcome was delivered, so once the manager
    // is idle every handler (called on the settling thread) has been called.
    let handlerCount = isHandler.filter { $0 }.count
    guard roundCalls.value == handlerCount else {
      Issue.record(
        "\(context): idle, but \(roundCalls.value) of \(handlerCount) handlers were called")
      return false
    }

    var ok = true
    var values = 0
    var cancellations = 0
    for index in 0..<participantCount {
      let expected = Self.value(for: keys[index])
      // Each participant gets exactly one result: a task returns once; a handler is checked.
      let received = isHandler[index] ? handlerCalls[index].all : awaited[index].map { [$0] }
      guard let received, received.count == 1, let result = received.first else {
        Issue.record("\(context): participant \(index) got \(received ?? []) (exactly one wanted)")
        ok = false
        continue
      }
      switch result {
      case .success(let value) where value == expected:
        values += 1
      case .failure(let error) where error is CancellationError:
        cancellations += 1
      default:
        Issue.record("\(context): participant \(index) got \(result), expected \(expected)")
        ok = false
      }
    }
    if !drained || manager.outstandingOperationCount != 0 {
      Issue.record(
        "\(context): manager did not drain: \(manager.outstandingOperationCount) outstanding")
      ok = false
    }
    for key in 0..<keySpace {
      let coalescingKey = CoalescingKey(
        operationType: ManualOperation.self, valueType: Int.self, base: key)
      if let stale = manager.inFlightOperation(for: coalescingKey) {
        Issue.record("\(context): key \(key) still indexes \(stale) after draining")
        ok = false
      }
    }
    for violation in await invariants.verify(manager, timeout: .seconds(30)) {
      Issue.record("\(context): \(violation)")
      ok = false
    }
    _ = await invariants.log.stop(timeout: .seconds(30))
    totals.add(
      Totals(
        rounds: 1, participants: participantCount, values: values, cancellations: cancellations,
        steps: steps.count, handlers: zip(isHandler, handlerCalls).filter(\.0).map(\.1)))
    return ok
  }

  /// Spawns every participant in order, with random actions in between that refer only to
  /// participants already spawned.
  static func script(participants: Int, using rng: inout SeededGenerator) -> [Step] {
    var steps: [Step] = []
    for index in 0..<participants {
      steps.append(.spawn(index))
      for _ in 0..<Int.random(in: 0...2, using: &rng) {
        let target = Int.random(in: 0...index, using: &rng)
        let step: Step =
          switch Int.random(in: 0..<16, using: &rng) {
          case 0..<5: .cancelTask(target)
          case 5..<7: .cancelOperation(target)
          case 7..<10: .releaseOperationElsewhere(target)
          case 10: .cancelAll
          case 11: .suspend
          case 12: .resume
          default: .yield
          }
        steps.append(step)
      }
    }
    return steps
  }
}
