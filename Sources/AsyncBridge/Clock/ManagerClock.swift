import OperationCore

/// A manager's clock as a Swift `Clock`: the time on which the manager measures every timer of
/// its work (OperationCore's Glossary lists them, under *manager's clock*), to read and to wait
/// on from a team's own code.
///
/// Get it from a manager (`manager.clock`) rather than keep the clock the manager was made
/// with: a wait on it is an entry of the manager's scheduler, so it ends when a `TestClock`
/// given to the manager is advanced past it, before that advance returns, like every other timer
/// of the manager.
///
/// ```swift
/// let clock = manager.clock
/// let retryAt = clock.now.advanced(by: .seconds(backoff))
/// try await clock.sleep(until: retryAt)     // or: try await clock.sleep(for: .seconds(backoff))
/// ```
///
/// A wait holds no thread, and cancelling the waiting task ends it at once with
/// `CancellationError`. ``sleep(until:then:)`` also runs an action the moment the clock reaches
/// the deadline, on the thread that moves the clock there, so that what the wait was for (say,
/// admitting a request) happens then rather than whenever the waiting task runs again.
public struct ManagerClock: Clock {
  /// The type of the clock's durations.
  public typealias Duration = Swift.Duration

  /// The manager's scheduler: it reads the time and fires the waits.
  let scheduler: Scheduler

  init(scheduler: Scheduler) {
    self.scheduler = scheduler
  }

  /// The current instant of the manager's clock.
  public var now: Instant { Instant(reading: scheduler.now) }

  /// The smallest interval the clock tells apart: any duration, as the layer's timers take
  /// any deadline.
  public var minimumResolution: Duration { .zero }

  /// Suspends the calling task until the clock reaches `deadline`, holding no thread; returns at
  /// once when the clock has reached it already. Runs in the caller's isolation.
  ///
  /// - Parameters:
  ///   - deadline: The instant to wait for, read from this clock or from the clock of a manager
  ///     on the same scheduler.
  ///   - tolerance: Ignored: the wait ends when the manager's scheduler fires it.
  /// - Throws: `CancellationError`, at once, when the calling task is cancelled before or while
  ///   it waits; the wait's timer is taken out then.
  public nonisolated(nonsending) func sleep(
    until deadline: Instant, tolerance: Duration? = nil
  ) async throws {
    try await sleep(until: deadline) {}
  }

  /// Suspends the calling task until the clock reaches `deadline`, then runs `action` the moment
  /// it does and returns what `action` returned. Runs in the caller's isolation; `action` does
  /// not (it is `@Sendable`).
  ///
  /// `action` runs on the thread that moves the clock to `deadline` (the one advancing a
  /// `TestClock`, before its advance returns; a Dispatch timer's for a real clock), or on the
  /// calling task at once when the clock has reached `deadline` already. What it does has
  /// therefore happened when the clock reads `deadline`, not only once the waiting task runs
  /// again. It runs at most once, and calls nothing that waits: it is a timer's action.
  ///
  /// ```swift
  /// // The request is admitted when the backoff ends; the task awaits its page afterwards.
  /// let fetch = FetchPage(number: 2)
  /// let priority = Operation.QueuePriority(Task.currentPriority)
  /// let request = try await manager.clock.sleep(until: backoffEnd) {
  ///   manager.admit(fetch, priority: priority)
  /// }
  /// let page = try await request.value()
  /// ```
  ///
  /// - Parameters:
  ///   - deadline: The instant to wait for, read from this clock or from the clock of a manager
  ///     on the same scheduler.
  ///   - action: What to do at `deadline`.
  /// - Returns: What `action` returned.
  /// - Throws: What `action` throws; `CancellationError`, at once, when the calling task is
  ///   cancelled before `action` runs (the wait's timer is taken out, and `action` never runs).
  ///   Once `action` has run, its value is returned even when the task was cancelled meanwhile,
  ///   so nothing it did is lost.
  public nonisolated(nonsending) func sleep<Value: Sendable>(
    until deadline: Instant, then action: @escaping @Sendable () throws -> Value
  ) async throws -> Value {
    guard scheduler.now < deadline.reading else {
      try Task.checkCancellation()
      return try action()
    }
    let wait = ClockWait(scheduler: scheduler, action: action)
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { wait.attach($0, until: deadline.reading) }
    } onCancel: {
      wait.cancel()
    }
  }
}
