import Foundation
import OperationCore
import TestSupport
import Testing

@testable import AsyncBridge

/// The shared timer behind callers' deadlines: deadlines fire in the order they are due, a
/// deadline taken out never fires, and a caller that gets its outcome first leaves nothing
/// behind.
@Suite struct CallerDeadlinesTests {
  @Test func deadlinesFireInTheOrderTheyAreDue() async {
    let deadlines = CallerDeadlines()
    let fired = Recorder<Int>()
    let base = DispatchTime.now() + .milliseconds(100)
    for (label, milliseconds) in [(3, 30), (1, 10), (2, 20), (0, 0)] {
      _ = deadlines.schedule(at: base + .milliseconds(milliseconds)) { fired.record(label) }
    }
    #expect(await fired.wait(forCount: 4))
    #expect(fired.values == [0, 1, 2, 3])
  }

  /// A deadline taken out before it is due never fires; taking out one that fired does nothing.
  @Test func aDeadlineTakenOutNeverFires() async {
    let deadlines = CallerDeadlines()
    let fired = Recorder<Int>()
    let base = DispatchTime.now() + .milliseconds(200)
    let cancelled = (0..<100).map { index in
      deadlines.schedule(at: base) { fired.record(index) }
    }
    let kept = deadlines.schedule(at: base + .milliseconds(20)) { fired.record(-1) }
    for id in cancelled { deadlines.cancel(id) }
    #expect(DispatchTime.now() < base, "taking the deadlines out took longer than 0.2 s")
    #expect(await fired.wait(forCount: 1))
    #expect(fired.values == [-1])
    deadlines.cancel(kept)
    #expect(deadlines.pendingCount(dueBetween: .zero, and: .seconds(3_600)) == 0)
  }

  /// Random insertions and removals keep the heap's order: what remains fires, earliest first.
  /// All are added and taken out well before the first is due.
  @Test func manyDeadlinesAddedAndTakenOutFireEarliestFirst() async {
    let deadlines = CallerDeadlines()
    let fired = Recorder<UInt64>()
    var generator = SeededGenerator(seed: 13)
    let base = DispatchTime.now() + .milliseconds(500)
    var kept: [UInt64] = []
    for index in 0..<2_000 {
      let deadline = base + .microseconds(Int.random(in: 0...40_000, using: &generator))
      let due = deadline.uptimeNanoseconds
      let id = deadlines.schedule(at: deadline) { fired.record(due) }
      if index.isMultiple(of: 3) { deadlines.cancel(id) } else { kept.append(due) }
    }
    #expect(DispatchTime.now() < base, "adding the deadlines took longer than half a second")
    #expect(await fired.wait(forCount: kept.count))
    #expect(fired.values == kept.sorted())
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
