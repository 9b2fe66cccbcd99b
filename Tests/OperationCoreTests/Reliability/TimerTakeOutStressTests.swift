import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// An operation's timeout and stall report leave the manager's scheduler when it finishes. Each
/// round enqueues operations with an hour-long timeout while racers cancel or finish them from
/// other threads as the queue starts them, so releases race the starts that arm the timers.
/// Once the manager is idle, no timer is left on the clock and every handler was called once.
/// Seeded (`RELIABILITY_SEED` replays a run) and bounded by rounds and time.
@Suite(.serialized) struct TimerTakeOutStressTests {
  @Test(.timeLimit(.minutes(2)))
  func workEndingWhileItStartsLeavesNoTimerSet() async throws {
    let (seed, roundsRun) = await runStressRounds(
      budget: .seconds(3), maximumRounds: 200, minimumRounds: 5
    ) { await Self.round(seed: $0, round: $1) }
    print("timer take-out: seed \(seed), \(roundsRun) rounds")
  }

  private static func round(seed: UInt64, round: Int) async -> [String] {
    var rng = SeededGenerator(seed: seed ^ (UInt64(round) &* 0x9E37_79B9_7F4A_7C15))
    let clock = TestClock()
    let manager = OperationQueueManager(name: "stress.timers", clock: clock)
    manager.stallThreshold = .seconds(60)
    let handled = AsyncCounter()
    let operations = (0..<40).map { index in
      let operation = ManualOperation(key: index)
      operation.timeout = .seconds(3600)
      return operation
    }
    let cancels = operations.map { _ in Bool.random(using: &rng) }
    for operation in operations {
      manager.enqueue(operation) { _ in handled.increment() }
    }
    // Each racer ends its half as soon as it can, while the queue is starting them.
    let racers = [0, 1].map { half in
      Task.detached {
        for index in operations.indices where index % 2 == half {
          if cancels[index] { operations[index].cancel() } else { operations[index].release(index) }
        }
      }
    }
    for racer in racers { await racer.value }

    var problems: [String] = []
    do {
      try await manager.waitUntilIdle(within: .testTimeout)
    } catch {
      problems.append("the manager did not become idle: \(error)")
    }
    if !(await handled.wait(untilAtLeast: operations.count)) {
      problems.append("\(handled.value) of \(operations.count) handlers called")
    }
    if handled.value > operations.count {
      problems.append("\(handled.value) handler calls for \(operations.count) operations")
    }
    if clock.pendingTimers != 0 {
      problems.append("\(clock.pendingTimers) timers left set after every operation finished")
    }
    return problems
  }
}
