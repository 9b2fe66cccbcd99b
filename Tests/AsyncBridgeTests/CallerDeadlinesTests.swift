import Foundation
import OperationCore
import TestSupport
import Testing

@testable import AsyncBridge

/// The shared timer behind callers' deadlines: deadlines fire in the order they are due, a
/// deadline taken out never fires, and a caller that gets its outcome first leaves nothing
/// behind. Until the thirteenth session each deadline was a Dispatch timer of its own, which
/// kept about 560 bytes until it fired, however long after the call that was.
@Suite struct CallerDeadlinesTests {
  @Test func deadlinesFireInTheOrderTheyAreDue() async {
    let deadlines = CallerDeadlines()
    let fired = Recorder<Int>()
    for (label, milliseconds) in [(3, 30), (1, 10), (2, 20), (0, 0)] {
      _ = deadlines.schedule(after: .milliseconds(milliseconds)) { fired.record(label) }
    }
    #expect(await fired.wait(forCount: 4))
    #expect(fired.values == [0, 1, 2, 3])
  }

  @Test func aDeadlineTakenOutNeverFires() async {
    let deadlines = CallerDeadlines()
    let fired = Recorder<Int>()
    let cancelled = (0..<100).map { index in
      deadlines.schedule(after: .milliseconds(5)) { fired.record(index) }
    }
    let kept = deadlines.schedule(after: .milliseconds(20)) { fired.record(-1) }
    for id in cancelled { deadlines.cancel(id) }
    #expect(await fired.wait(forCount: 1))
    try? await Task.sleep(for: .milliseconds(30))
    #expect(fired.values == [-1])
    deadlines.cancel(kept)  // Fired already: nothing to take out.
  }

  /// Random insertions and removals keep the heap's order: what remains fires, earliest first
  /// (each records when it was due, read just before it was scheduled; the scheduler reads the
  /// clock again, so a microsecond apart).
  @Test func manyDeadlinesAddedAndTakenOutFireEarliestFirst() async {
    let deadlines = CallerDeadlines()
    let fired = Recorder<UInt64>()
    var generator = SeededGenerator(seed: 13)
    var kept = 0
    for index in 0..<2_000 {
      let delay = Duration.milliseconds(Int.random(in: 1...40, using: &generator))
      let due = DispatchTime.now().uptimeNanoseconds + UInt64(delay / .nanoseconds(1))
      let id = deadlines.schedule(after: delay) { fired.record(due) }
      if index.isMultiple(of: 3) { deadlines.cancel(id) } else { kept += 1 }
    }
    #expect(await fired.wait(forCount: kept))
    let order = fired.values
    let outOfOrder = zip(order, order.dropFirst()).filter { $1 + 100_000 < $0 }
    #expect(outOfOrder.isEmpty, "\(outOfOrder.count) deadlines fired before an earlier one")
    #expect(order.count == kept)
    #expect(deadlines.pendingCount(dueBetween: .zero, and: .seconds(3_600)) == 0)
  }

  /// Callers with a deadline ten thousand hours away that get their outcome at once leave no
  /// deadline pending.
  @Test func aCallerThatGetsItsOutcomeFirstLeavesNoDeadlineBehind() async throws {
    let manager = OperationQueueManager(name: "deadlines.outcomeFirst")
    let far = Duration.seconds(10_000 * 3_600)
    for value in 0..<500 {
      #expect(
        try await manager.perform(ManualOperation(ending: .returning(value)), timeout: far) == value
      )
      #expect(try await manager.run(key: value, timeout: far) { value } == value)
    }
    let pending = CallerDeadlines.shared.pendingCount(
      dueBetween: far - .seconds(3_600), and: far + .seconds(3_600))
    #expect(pending == 0)
  }
}
