extension TestClock {
  /// Waits, at most `bound` (see ``WaitExpired``), until at least `count` timers are set on this
  /// clock (``pendingTimers``): the test then knows that the work it started has armed them (a
  /// caller registered its deadline, an operation started and armed its timeout, a retry or a
  /// backoff began to wait) before it advances the clock past them.
  ///
  /// ```swift
  /// let call = Task { try await manager.perform(op, timeout: .seconds(30)) }
  /// try await clock.waitUntilTimers(1)
  /// await clock.advance(by: .seconds(30))
  /// ```
  ///
  /// The count covers every scheduler on this clock: count the timers the work under test
  /// sets, not only the one you are about to pass.
  ///
  /// - Parameters:
  ///   - count: How many timers must be set.
  ///   - bound: The longest time to wait; 30 seconds by default.
  /// - Throws: ``WaitExpired`` when fewer were set by then; `CancellationError` when the
  ///   calling task is cancelled.
  public nonisolated(nonsending) func waitUntilTimers(
    _ count: Int, within bound: Duration = .seconds(30)
  ) async throws {
    try await poll(until: "\(count) timers set on the test clock", within: bound) {
      pendingTimers >= count
    }
  }
}
