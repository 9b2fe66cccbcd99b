/// The time a bounded wait has left: real time, except that a step of the wait that took
/// longer than ``longestCountedStep`` counts as that long.
///
/// A bound exists to turn a hang into a failure. A wait whose own task did not get to run for a
/// while (the process stopped in a debugger, or a machine running hundreds of tests on two
/// cores) has not watched the work for that while, so the while is not charged to the work:
/// the wait ends after `bound` of time in which it kept watching.
package struct WaitBudget: Sendable {
  /// The most a single step is charged.
  package let longestCountedStep: Duration
  /// What is left of the bound.
  package private(set) var left: Duration
  private var last = ContinuousClock.now

  /// A budget of `bound` for a wait that looks again every `tick`. A step is charged at most
  /// twice the tick, and never less than 10 ms, the time a short sleep often takes on a busy
  /// machine.
  package init(_ bound: Duration, tick: Duration) {
    left = bound
    longestCountedStep = max(tick * 2, .milliseconds(10))
  }

  /// Charges the time since the budget was made or last charged; false once it is spent.
  package mutating func charge() -> Bool {
    let now = ContinuousClock.now
    left -= min(now - last, longestCountedStep)
    last = now
    return left > .zero
  }
}

/// Sleeps, a quarter of a second at a time (less for the last), until a ``WaitBudget`` of
/// `bound` is spent.
///
/// - Throws: `CancellationError` when the calling task is cancelled.
package func sleep(spending bound: Duration) async throws {
  let tick = Duration.milliseconds(250)
  var budget = WaitBudget(bound, tick: tick)
  while budget.charge() {
    try await Task.sleep(for: min(tick, budget.left))
  }
}
