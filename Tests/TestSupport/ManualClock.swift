import LockedValue
import OperationCore

/// A clock that moves only when a test advances it, so that time-based behaviour (operation
/// timeouts, stall reports, callers' deadlines, retry waits, page backoffs) runs without
/// waiting for real time.
///
/// Give it to a manager (`OperationQueueManager(…, clock: clock)`): the manager's scheduler is
/// then driven by this clock. ``advance(by:)`` runs every entry that comes due, in due order,
/// synchronously on the calling thread, before it returns.
public final class ManualClock: Clock, SchedulerDrivingClock, @unchecked Sendable {
  // State lives in `state`, guarded by its lock; no scheduler is called while it is held.

  /// A point on a manual clock: the time since the clock was made.
  public struct Instant: InstantProtocol {
    /// The time from the clock's start.
    public let offset: Duration

    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    /// The time from this instant to `other`.
    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }
  }

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
  public var now: Instant { Instant(offset: state.withLock { $0.now }) }

  /// The clock's resolution: any duration.
  public var minimumResolution: Duration { .zero }

  /// The time since the clock was made.
  public var elapsed: Duration { state.withLock { $0.now } }

  /// Suspends until ``advance(by:)`` reaches `deadline`; throws `CancellationError` at once
  /// when the task is cancelled.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let scheduler = ownScheduler.withLock { own in
      if let own { return own }
      let made = Scheduler(driver: makeSchedulerDriver())
      own = made
      return made
    }
    try await scheduler.sleep(until: ClockInstant(sinceOrigin: deadline.offset))
  }

  /// Moves the clock forward by `duration`, running every timer that comes due meanwhile, in
  /// due order (stepping the clock to each one's instant first), on this thread, before it
  /// returns. A timer that an action schedules within the advance runs too.
  public func advance(by duration: Duration) {
    let target = state.withLock { $0.now } + duration
    while let (scheduler, due) = earliestScheduler(dueBy: target) {
      state.withLock { $0.now = max($0.now, due) }
      scheduler.fireDue()
    }
    state.withLock { $0.now = max($0.now, target) }
  }

  /// How many timers are pending on the schedulers on this clock.
  public var pendingCount: Int {
    schedulers.reduce(0) { $0 + $1.pendingCount }
  }

  /// Waits, at most `timeout` of real time, until at least `count` timers are pending on this
  /// clock: the test then knows that the work it started has armed them (a caller registered
  /// its deadline, an operation started and armed its timeout) before it advances the clock.
  public func waitForTimers(
    _ count: Int, within timeout: Duration = .seconds(30)
  ) async -> Bool {
    await eventually(within: timeout) { pendingCount >= count }
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

  package func makeSchedulerDriver() -> any SchedulerDriver {
    Driver(clock: self)
  }

  /// Reads this clock for one scheduler and remembers the scheduler once it has an entry.
  /// Weak: the clock keeps its own scheduler, and a clock nobody holds never moves again.
  private final class Driver: SchedulerDriver {
    weak let clock: ManualClock?

    init(clock: ManualClock) {
      self.clock = clock
    }

    var now: ClockInstant { ClockInstant(sinceOrigin: clock?.elapsed ?? .zero) }

    func wake(_ scheduler: Scheduler, at due: ClockInstant) {
      clock?.remember(scheduler)
    }
  }

  /// Under `scheduler`'s lock: takes only this clock's lock, a leaf beneath it.
  private func remember(_ scheduler: Scheduler) {
    state.withLock { state in
      guard !state.schedulers.contains(where: { $0.scheduler === scheduler }) else { return }
      state.schedulers.append(WeakScheduler(scheduler: scheduler))
    }
  }
}
