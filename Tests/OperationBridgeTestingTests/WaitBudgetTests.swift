import Foundation
import OperationBridgeTesting
import TestSupport
import Testing

/// The budget behind every bounded wait: it never runs out before its bound of real time, and a
/// stretch in which the waiting code did not run is charged only briefly. Each test stops its own
/// thread, never one that other tests' tasks share.
@Suite struct WaitBudgetTests {
  /// A pause three times the bound is charged as one step: the budget is not spent.
  @Test func aPauseLongerThanTheBoundIsChargedOneStep() async {
    let (longest, left) = await onOwnThread { () -> (Duration, Bool) in
      var budget = WaitBudget(.milliseconds(100), tick: .milliseconds(1))
      usleep(300_000)
      return (budget.longestCountedStep, budget.charge())
    }
    #expect(longest == .milliseconds(10))
    #expect(left, "a 300 ms pause used up a 100 ms budget")
  }

  /// Charged in short steps, the budget runs out, and not before its bound of real time passed.
  @Test func shortStepsSpendTheBudgetNoSoonerThanTheBound() async {
    let (steps, elapsed) = await onOwnThread { () -> (Int, Duration) in
      let start = ContinuousClock.now
      var budget = WaitBudget(.milliseconds(50), tick: .milliseconds(1))
      var steps = 0
      while budget.charge() {
        steps += 1
        usleep(1_000)
      }
      return (steps, ContinuousClock.now - start)
    }
    #expect(steps > 0)
    #expect(elapsed >= .milliseconds(50))
  }

  /// A wait bounded by the kit still throws once its bound is spent.
  @Test func aWaitForWhatNeverHappensThrowsOnceItsBoundIsSpent() async {
    let clock = TestClock()
    await #expect(throws: WaitExpired.self) {
      try await clock.waitUntilTimers(1, within: .milliseconds(50))
    }
  }
}
