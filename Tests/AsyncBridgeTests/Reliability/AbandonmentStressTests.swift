import AsyncBridge
import Dispatch
import Foundation
import LockedValue
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// Abandonment and forgotten keys raced against everything else: awaiting callers with random
/// policies (cancel, finish, linger on a manual clock) join and leave shared work while other
/// threads finish it, cancel it, call `cancelAllOperations()`, forget its key and advance the
/// clock past lingers. After each round: every caller got exactly one outcome, a value only
/// from work of its own key; the manager drained; and ``EventInvariants`` holds (one terminal
/// event per admitted operation, no `joined` after it, cancel-all is all). Seeded
/// (`RELIABILITY_SEED` replays a run) and bounded by rounds and time.
@Suite(.serialized) struct AbandonmentStressTests {
  @Test(.timeLimit(.minutes(2)))
  func abandonmentRacesJoinsCancelAllFinishAndForget() async throws {
    let (seed, roundsRun) = await runStressRounds(budget: .seconds(8), maximumRounds: 2_000) {
      await Self.round(seed: $0, round: $1)
    }
    print("abandonment vs joins, cancel-all, finish and forget: seed \(seed), \(roundsRun) rounds")
  }

  /// One caller of a round: its task and the key it asked for.
  private struct Caller {
    let key: Int
    let task: Task<Int, any Error>
  }

  private static func round(seed: UInt64, round: Int) async -> [String] {
    var rng = SeededGenerator(seed: seed ^ (UInt64(round) &* 0xA24B_AED4_963E_E407))
    let clock = TestClock()
    let manager = OperationQueueManager(
      name: "stress.abandon", maxConcurrentOperationCount: Int.random(in: 1...3, using: &rng),
      clock: clock)
    let invariants = EventInvariants(manager)
    let keySpace = 3
    let operations = Locked<[ManualOperation]>([])
    let callers = Locked<[Caller]>([])
    let handlerCalls = Locked<[Int: Int]>([:])

    @Sendable func makeOperation(key: Int) -> ManualOperation {
      let operation = ManualOperation(key: key)
      invariants.track(operation)
      operations.withLock { $0.append(operation) }
      return operation
    }

    // Two lanes of scripted steps, on threads of their own, plus the test's task.
    let scripts: [[Int]] = (0..<2).map { _ in
      (0..<Int.random(in: 10...30, using: &rng)).map { _ in Int.random(in: 0..<1_000, using: &rng) }
    }
    let lanesDone = AsyncCounter()
    for (lane, script) in scripts.enumerated() {
      Thread.detachNewThread {
        for (step, draw) in script.enumerated() {
          let key = draw % keySpace
          switch draw % 100 {
          case 0..<35:
            let policy: AbandonmentPolicy =
              switch draw % 3 {
              case 0: .cancel
              case 1: .finish
              default: .linger(.milliseconds(draw % 7 + 1))
              }
            let operation = makeOperation(key: key)
            let task = Task { try await manager.perform(operation, whenAbandoned: policy) }
            callers.withLock { $0.append(Caller(key: key, task: task)) }
          case 35..<42:
            let serial = lane * 1_000 + step
            invariants.enqueue(makeOperation(key: key), on: manager) { _ in
              handlerCalls.withLock { $0[serial, default: 0] += 1 }
            }
          case 42..<62:
            let picked = callers.withLock { $0.isEmpty ? nil : $0[draw % $0.count] }
            picked?.task.cancel()
          case 62..<74:
            let picked = operations.withLock { $0.isEmpty ? nil : $0[draw % $0.count] }
            picked?.release(picked?.key ?? -1)
          case 74..<78:
            let picked = operations.withLock { $0.isEmpty ? nil : $0[draw % $0.count] }
            picked?.cancel()
          case 78..<81:
            invariants.cancelAll(manager, othersMaySettle: true)
          case 81..<89:
            manager.forget(key: key)
          case 89..<96:
            // A lane is a thread of its own: it waits for the advance, which fires the
            // lingers due by then on a task.
            let advanced = DispatchSemaphore(value: 0)
            Task {
              await clock.advance(by: .milliseconds(draw % 4 + 1))
              advanced.signal()
            }
            advanced.wait()
          default:
            usleep(UInt32(draw % 50))
          }
        }
        lanesDone.increment()
      }
    }

    var problems: [String] = []
    if !(await lanesDone.wait(untilAtLeast: scripts.count, timeout: .testTimeout)) {
      problems.append("the lanes did not end")
    }
    // Clean-up: every linger runs out, every operation still open ends with its key.
    await clock.advance(by: .seconds(60))
    for operation in operations.withLock({ $0 }) { operation.release(operation.key ?? -1) }
    for caller in callers.withLock({ $0 }) {
      guard let outcome = await result(of: caller.task, within: .testTimeout) else {
        problems.append("a caller of key \(caller.key) never got its outcome")
        continue
      }
      switch outcome {
      case .success(let value) where value != caller.key:
        problems.append("a caller of key \(caller.key) got the value of key \(value)")
      case .success, .failure(is CancellationError):
        break
      case .failure(let error):
        problems.append("a caller of key \(caller.key) got \(error)")
      }
    }
    problems += await invariants.verify(manager)
    for (serial, calls) in handlerCalls.withLock({ $0 }) where calls != 1 {
      problems.append("handler \(serial) was called \(calls) times")
    }
    let expectedHandlers = scripts.enumerated().reduce(0) { count, lane in
      count + lane.element.filter { (35..<42).contains($0 % 100) }.count
    }
    if handlerCalls.withLock({ $0.count }) != expectedHandlers {
      problems.append(
        "\(handlerCalls.withLock { $0.count }) of \(expectedHandlers) handlers were called")
    }
    return problems
  }
}
