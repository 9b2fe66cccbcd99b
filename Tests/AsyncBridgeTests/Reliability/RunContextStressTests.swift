import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// `run { }` closures, each in a task made in its caller's context, raced against their
/// callers' cancellation, `cancelAllOperations()` and the queue's start. After each round:
/// every caller got exactly one outcome, and a value only from its own closure, which saw the
/// caller's task-local value; no closure ran twice; the manager drained; and every closure's
/// task ended, so what it captured was freed (a task left waiting at its gate would keep it).
/// Seeded (`RELIABILITY_SEED` replays a run) and bounded by rounds and time.
@Suite(.serialized) struct RunContextStressTests {
  enum Trace {
    @TaskLocal static var callerID = -1
  }

  final class Payload: Sendable {}

  @Test(.timeLimit(.minutes(2)))
  func runsRacingCancellationCancelAllAndStartEndWithTheirCallersContext() async throws {
    let (seed, roundsRun) = await runStressRounds(budget: .seconds(6), maximumRounds: 1_000) {
      await Self.round(seed: $0, round: $1)
    }
    print("run context vs cancellation, cancel-all and start: seed \(seed), \(roundsRun) rounds")
  }

  private static func round(seed: UInt64, round: Int) async -> [String] {
    var rng = SeededGenerator(seed: seed ^ (UInt64(round) &* 0x9E37_79B9_7F4A_7C15))
    let manager = OperationQueueManager(
      name: "stress.runContext", maxConcurrentOperationCount: Int.random(in: 1...3, using: &rng))
    let suspended = Bool.random(using: &rng)
    manager.isSuspended = suspended
    let runs = Locked<[Int: Int]>([:])
    var payloads: [WeakReference<Payload>] = []
    var callers: [(id: Int, task: Task<Int, any Error>)] = []
    let keyed = Bool.random(using: &rng)
    for id in 0..<Int.random(in: 2...8, using: &rng) {
      let payload = Payload()
      payloads.append(WeakReference(payload))
      let task = Task {
        try await Trace.$callerID.withValue(id) {
          let body: @Sendable () async throws -> Int = {
            runs.withLock { $0[id, default: 0] += 1 }
            await Task.yield()
            return withExtendedLifetime(payload) { Trace.callerID }
          }
          return keyed
            ? try await manager.run(key: id, body) : try await manager.run(body)
        }
      }
      callers.append((id, task))
    }
    for step in 0..<Int.random(in: 1...4, using: &rng) {
      switch Int.random(in: 0..<4, using: &rng) {
      case 0: callers.randomElement(using: &rng)?.task.cancel()
      case 1: manager.cancelAllOperations()
      case 2: manager.isSuspended = false
      default: if step.isMultiple(of: 2) { await Task.yield() }
      }
    }
    manager.isSuspended = false
    var problems: [String] = []
    for (id, task) in callers {
      switch await task.result {
      case .success(let seen) where seen != id:
        problems.append("caller \(id) got the value of a closure that saw caller \(seen)")
      case .success, .failure(is CancellationError): break
      case .failure(let error): problems.append("caller \(id) failed with \(error)")
      }
    }
    for (id, count) in runs.withLock({ $0 }) where count > 1 {
      problems.append("caller \(id)'s closure ran \(count) times")
    }
    if !(await becomesIdle(manager)) { problems.append("the manager never drained") }
    let freed = await eventually { payloads.allSatisfy(\.isFreed) }
    if !freed { problems.append("a closure's task never ended (suspended: \(suspended))") }
    return problems
  }
}
