import LockedValue
import OperationCore

/// A clock that moves only when a test advances it: give it to a manager, and everything the
/// layer times on that manager happens when the test says, without sleeping (OperationCore's
/// Glossary lists what that is, under *manager's clock*).
///
/// ```swift
/// let clock = TestClock()
/// let manager = OperationQueueManager(name: "t", clock: clock)
/// let call = Task { try await manager.perform(op, timeout: .seconds(30)) }
/// try await clock.waitUntilTimers(1)       // the caller's deadline is armed
/// await clock.advance(by: .seconds(30))    // the caller has now left with OperationTimeoutError
/// ```
///
/// ``advance(by:)`` says exactly what has happened when it returns. Only a `TestClock` can be
/// driven this way: a manager made with any other `Clock<Duration>` reads it and waits for it
/// in real time.
public final class TestClock: Clock, SchedulerDrivingClock, @unchecked Sendable {
  // State lives in `state`, guarded by its lock; no scheduler is called while it is held.

  private struct State {
    var now = Duration.zero
    /// The schedulers on this clock that ever had an entry, held weakly.
    var schedulers: [WeakScheduler] = []
  }

  private struct WeakScheduler {
    weak var scheduler: Scheduler?
  }

  private let state = Locked(State())

  /// The scheduler behind ``sleep(until:tolerance:)``, made on first use.
  private let ownScheduler = Locked<Scheduler?>(nil)

  /// A clock at zero.
  public init() {}

  /// The current instant.
  public var now: Instant { Instant(offset: elapsed) }

  /// The clock's resolution: any duration.
  public var minimumResolution: Duration { .zero }

  /// The time the clock was advanced by since it was made.
  public var elapsed: Duration { state.withLock { $0.now } }

  /// Suspends until ``advance(by:)`` reaches `deadline`, or returns at once when the clock has
  /// reached it already (as every clock's sleep does: code under test that sleeps for zero
  /// never waits for the test); throws `CancellationError` at once when the task is cancelled.
  ///
  /// The advance that reaches `deadline` resumes the sleeping task; the code after the sleep
  /// runs on that task's executor afterwards, not before the advance returns.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let scheduler = ownScheduler.withLock { own in
      if let own { return own }
      let made = Scheduler(driver: makeSchedulerDriver())
      own = made
      return made
    }
    try await scheduler.sleep(until: ClockInstant(sinceOrigin: deadline.offset))
  }

  /// Moves the clock forward by `duration`, firing every timer due by then. A duration of
  /// zero (or less) leaves the clock where it is and fires what is due now, such as a deadline
  /// of zero. The clock stops at ``latest``: an advance past it ends there.
  ///
  /// When it returns:
  /// - Every timer on this clock due at or before the new time has fired, in due order (ties
  ///   in the order they were set), the clock standing at each one's instant while it fires;
  ///   a timer set by one of them that falls due by the new time has fired too.
  /// - What those timers do inside the layer has happened, on this thread, before the return:
  ///   - an operation that timed out has settled: every awaiting caller has been resumed with
  ///     `OperationTimeoutError`, every completion handler without a callback queue has
  ///     returned, and one with a callback queue has been handed to that queue;
  ///   - a caller whose deadline passed has left and been resumed (and the work, if nobody
  ///     else waits for it, has been cancelled);
  ///   - a stall report has been published to the manager's event subscribers (a stream's
  ///     consumer reads it when its task runs);
  ///   - a `NetworkingOperation` whose retry wait ended (its `RetryPolicy`'s delay, or the
  ///     server's `Retry-After`) has created and resumed its next attempt's data task;
  ///   - a page sequence whose `backoff` ended has had its next page's request admitted by the
  ///     manager (it counts among the key's callers);
  ///   - a wait on the manager's `clock` that ended has run its action
  ///     (`sleep(until:then:)`) and resumed its task.
  /// - The clock reads the new time.
  ///
  /// What it cannot promise is work that runs elsewhere afterwards: the code after an `await`
  /// in a resumed task (a caller's own task, a task that slept with ``sleep(until:tolerance:)``)
  /// runs on its executor later; await that task (`await call.value`) to see it. A handler on
  /// a callback queue, URLSession sending a request it was handed, and an operation the queue
  /// starts on its own thread likewise run later: wait for them with the manager
  /// (``OperationCore/OperationQueueManager/waitUntilCallers(_:forKey:within:)``,
  /// ``OperationCore/OperationQueueManager/waitUntilIdle(within:)``) or the test's own signal.
  /// A timer is only fired if it was set before the clock passed its instant: wait with
  /// ``waitUntilTimers(_:within:)`` until the work under test has set its timers.
  ///
  /// Advance from one task at a time: two advances at once each fire what they find due, but
  /// neither waits for the timers the other is firing.
  ///
  /// Asynchronous only so that a test awaits it like the work it drives; it never suspends to
  /// wait for anything, and it never reads the real clock.
  public nonisolated(nonsending) func advance(by duration: Duration) async {
    fire(through: duration)
  }

  /// The furthest the clock goes from its start: `Int64.max` seconds (about 292 billion years),
  /// so that advancing never overflows `Duration`.
  public static let latest = Duration.seconds(Int64.max)

  /// The synchronous body of ``advance(by:)``.
  private func fire(through duration: Duration) {
    let now = elapsed
    let target = duration >= Self.latest - now ? Self.latest : now + max(duration, .zero)
    while let (scheduler, due) = earliestScheduler(dueBy: target) {
      state.withLock { $0.now = max($0.now, due) }
      scheduler.fireDue()
    }
    state.withLock { $0.now = max($0.now, target) }
  }

  /// How many timers are set on this clock and have not fired: those of every manager given
  /// this clock (OperationCore's Glossary lists them, under *manager's clock*) and this clock's
  /// own ``sleep(until:tolerance:)``s. An operation's timeout and stall check are taken out when
  /// it finishes, and a caller's deadline when the caller gets its outcome.
  public var pendingTimers: Int {
    schedulers.reduce(0) { $0 + $1.pendingCount }
  }

  /// The scheduler with the earliest entry due by `target`, and that entry's instant.
  private func earliestScheduler(dueBy target: Duration) -> (Scheduler, Duration)? {
    var earliest: (scheduler: Scheduler, due: Duration)?
    for scheduler in schedulers {
      guard let due = scheduler.earliestDue?.sinceOrigin, due <= target else { continue }
      if let current = earliest, current.due <= due { continue }
      earliest = (scheduler, due)
    }
    return earliest
  }

  private var schedulers: [Scheduler] {
    state.withLock { state in
      state.schedulers.removeAll { $0.scheduler == nil }
      return state.schedulers.compactMap(\.scheduler)
    }
  }

  /// A driver for one scheduler on this clock: the manager's, or this clock's own.
  package func makeSchedulerDriver() -> any SchedulerDriver {
    TestClockDriver(clock: self)
  }

  /// Under a scheduler's lock: takes only this clock's lock, a leaf beneath it.
  func remember(_ scheduler: Scheduler) {
    state.withLock { state in
      guard !state.schedulers.contains(where: { $0.scheduler === scheduler }) else { return }
      state.schedulers.append(WeakScheduler(scheduler: scheduler))
    }
  }
}
