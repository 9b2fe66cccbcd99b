import OperationCore

/// Reads a ``TestClock`` for one scheduler, and makes the clock remember the scheduler once it
/// has an entry, so that ``TestClock/advance(by:)`` fires it. Weak: the clock keeps its own
/// scheduler, and a clock nobody holds never moves again.
final class TestClockDriver: SchedulerDriver {
  weak let clock: TestClock?

  init(clock: TestClock) {
    self.clock = clock
  }

  var now: ClockInstant { ClockInstant(sinceOrigin: clock?.elapsed ?? .zero) }

  /// Nothing counts down: the clock fires the scheduler when a test advances it.
  func wake(_ scheduler: Scheduler, at due: ClockInstant) {
    clock?.remember(scheduler)
  }
}
