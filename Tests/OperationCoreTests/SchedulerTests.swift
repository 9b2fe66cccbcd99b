import AsyncBridge
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// The manager's scheduler, driven by a test clock: entries fire in the order they are due,
/// an entry taken out never fires, and a caller that gets its outcome first leaves no deadline
/// behind.
@Suite struct SchedulerTests {
  @Test func deadlinesFireInTheOrderTheyAreDue() async {
    let clock = TestClock()
    let scheduler = Scheduler.on(clock)
    let fired = Recorder<Int>()
    for (label, milliseconds) in [(3, 30), (1, 10), (2, 20), (0, 0)] {
      scheduler.schedule(after: .milliseconds(milliseconds)) { fired.record(label) }
    }
    await clock.advance(by: .milliseconds(30))
    #expect(fired.values == [0, 1, 2, 3])
  }

  /// A deadline taken out before it is due never fires; taking out one that fired does nothing.
  @Test func aDeadlineTakenOutNeverFires() async {
    let clock = TestClock()
    let scheduler = Scheduler.on(clock)
    let fired = Recorder<Int>()
    let cancelled = (0..<100).map { index in
      scheduler.schedule(after: .milliseconds(200)) { fired.record(index) }
    }
    let kept = scheduler.schedule(after: .milliseconds(220)) { fired.record(-1) }
    for id in cancelled { scheduler.cancel(id) }
    await clock.advance(by: .milliseconds(219))
    #expect(fired.values.isEmpty)
    await clock.advance(by: .milliseconds(1))
    #expect(fired.values == [-1])
    scheduler.cancel(kept)
    #expect(scheduler.pendingCount == 0)
  }

  /// Random insertions and removals keep the heap's order: what remains fires, earliest first.
  @Test func manyDeadlinesAddedAndTakenOutFireEarliestFirst() async {
    let clock = TestClock()
    let scheduler = Scheduler.on(clock)
    let fired = Recorder<Duration>()
    var generator = SeededGenerator(seed: 13)
    var kept: [Duration] = []
    for index in 0..<2_000 {
      let due = Duration.microseconds(Int.random(in: 0...40_000, using: &generator))
      let id = scheduler.schedule(after: due) { fired.record(due) }
      if index.isMultiple(of: 3) { scheduler.cancel(id) } else { kept.append(due) }
    }
    await clock.advance(by: .milliseconds(40))
    #expect(fired.values == kept.sorted())
    #expect(scheduler.pendingCount == 0)
  }

  /// Advancing steps the clock to each entry's instant before running it, across every
  /// scheduler on the clock, and runs an entry that an action adds if it is due by then.
  @Test func advancingRunsEveryScheduleOnTheClockInDueOrder() async {
    let clock = TestClock()
    let first = Scheduler.on(clock)
    let second = Scheduler.on(clock)
    let fired = Recorder<String>()
    first.schedule(after: .seconds(3)) { fired.record("first 3 s at \(clock.elapsed)") }
    second.schedule(after: .seconds(1)) {
      fired.record("second 1 s at \(clock.elapsed)")
      first.schedule(after: .seconds(1)) { fired.record("first 2 s at \(clock.elapsed)") }
    }
    second.schedule(after: .seconds(5)) { fired.record("second 5 s") }
    await clock.advance(by: .seconds(4))
    #expect(
      fired.values == [
        "second 1 s at \(Duration.seconds(1))", "first 2 s at \(Duration.seconds(2))",
        "first 3 s at \(Duration.seconds(3))",
      ])
    #expect(clock.elapsed == .seconds(4))
    #expect(clock.pendingTimers == 1)
  }

  /// Callers with a deadline ten thousand hours away that get their outcome at once leave no
  /// deadline pending.
  @Test func aCallerThatGetsItsOutcomeFirstLeavesNoDeadlineBehind() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "deadlines.outcomeFirst", clock: clock)
    let far = Duration.seconds(10_000 * 3_600)
    for value in 0..<500 {
      #expect(
        try await manager.perform(ManualOperation(ending: .returning(value)), timeout: far) == value
      )
      #expect(try await manager.run(key: value, timeout: far) { value } == value)
    }
    #expect(clock.pendingTimers == 0)
  }

  /// The continuous scheduler reads the system clock directly: its instants advance exactly as
  /// `ContinuousClock`'s. Each reading of one clock is bracketed by readings of the other, so
  /// the interval of the inner pair lies within that of the outer pair, however the threads
  /// are scheduled; a clock that ran slower, faster or stood still would leave the bracket.
  @Test func theContinuousSchedulerAdvancesWithTheContinuousClock() async throws {
    let scheduler = Scheduler.on(ContinuousClock())
    for _ in 0..<20 {
      let outerStart = ContinuousClock.now
      let ours0 = scheduler.now
      let innerStart = ContinuousClock.now
      try await Task.sleep(for: .milliseconds(5))
      let innerEnd = ContinuousClock.now
      let ours1 = scheduler.now
      let outerEnd = ContinuousClock.now
      #expect(ours1 - ours0 >= innerEnd - innerStart)
      #expect(ours1 - ours0 <= outerEnd - outerStart)
    }
  }
}
