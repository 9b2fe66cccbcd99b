/// How often a bounded wait re-reads a condition that no event announces.
let pollingInterval = Duration.milliseconds(1)

/// Re-reads `condition` every ``pollingInterval`` until it holds, or throws ``WaitExpired``
/// naming `description` once `bound` is spent (a ``WaitBudget``). Polling only ever decides how
/// soon a wait notices: the outcome of a test does not depend on it unless the bound passes.
///
/// - Throws: ``WaitExpired``; `CancellationError` when the calling task is cancelled.
package func poll(
  until description: @autoclosure () -> String, within bound: Duration,
  _ condition: () -> Bool
) async throws {
  var budget = WaitBudget(bound, tick: pollingInterval)
  while !condition() {
    guard budget.charge() else {
      throw WaitExpired(condition: description(), bound: bound)
    }
    try await Task.sleep(for: pollingInterval)
  }
}
