import LockedValue

/// The one component that fires timers on a clock: every timer of the work a manager admits
/// goes through its manager's scheduler. The Glossary's *manager's clock* entry lists them.
///
/// Pending entries sit in a min-heap by due instant (adding and taking one out cost O(log n));
/// a ``SchedulerDriver`` wakes the scheduler when the earliest is due: one Dispatch timer for a
/// real clock, the test itself for a test clock. Due entries are taken out under the lock
/// and run after it is released, in due order (ties in the order they were added), on the
/// thread that woke the scheduler.
///
/// Any lock may be held while this one is taken. Nothing is called out under it but the
/// driver's ``SchedulerDriver/wake(_:at:)``, which calls nothing out either and takes at most a
/// test clock's lock (the lock order is written on `Locked`).
@usableFromInline
package final class Scheduler: @unchecked Sendable {
  // State lives in `state`, guarded by its lock; `driver` is immutable.
  private struct State {
    var heap = TimerHeap()
    /// What the driver was last asked to wake the scheduler for; nil once it did.
    var armedFor: ClockInstant?
  }

  private let state = Locked(State())

  /// Reads the clock and wakes the scheduler.
  package let driver: any SchedulerDriver

  /// The scheduler on the continuous clock: every manager made with `ContinuousClock` shares
  /// it, and so does work run outside any manager.
  package static let continuous = Scheduler(driver: DispatchTimerDriver(now: ClockInstant.now))

  /// A scheduler woken by `driver`.
  package init(driver: any SchedulerDriver) {
    self.driver = driver
  }

  /// The scheduler for `clock`: ``continuous`` for the continuous clock, one driven by the
  /// clock itself for a ``SchedulerDrivingClock`` (a test clock in tests), and otherwise one
  /// that reads `clock` and waits with a Dispatch timer.
  package static func on(_ clock: some Clock<Duration>) -> Scheduler {
    if clock is ContinuousClock { return .continuous }
    if let driving = clock as? any SchedulerDrivingClock {
      return Scheduler(driver: driving.makeSchedulerDriver())
    }
    let origin = clock.now
    return Scheduler(
      driver: DispatchTimerDriver { ClockInstant(sinceOrigin: origin.duration(to: clock.now)) })
  }

  /// The clock's current instant.
  package var now: ClockInstant { driver.now }

  /// Runs `action` once `delay` has passed (at most a century), unless ``cancel(_:)`` takes it
  /// out first. Returns the entry's identity.
  @discardableResult
  package func schedule(
    after delay: Duration, _ action: @escaping @Sendable () -> Void
  ) -> UInt64 {
    schedule(at: now + min(max(delay, .zero), .century), action)
  }

  /// Runs `action` once the clock reaches `due`, as ``schedule(after:_:)`` does.
  @discardableResult
  package func schedule(
    at due: ClockInstant, _ action: @escaping @Sendable () -> Void
  ) -> UInt64 {
    state.withLock { state in
      let id = state.heap.insert(due: due, action: action)
      rearm(&state)
      return id
    }
  }

  /// Takes the entry `id` out, unless it has run (or is running).
  package func cancel(_ id: UInt64) {
    state.withLock { state in
      guard state.heap.remove(id) else { return }
      rearm(&state)
    }
  }

  /// The instant the earliest pending entry is due; nil when none is pending.
  package var earliestDue: ClockInstant? {
    state.withLock { $0.heap.earliest }
  }

  /// How many entries are pending.
  package var pendingCount: Int {
    state.withLock { $0.heap.count }
  }

  /// How many pending entries are due between `earliest` and `latest` from now.
  package func pendingCount(dueBetween earliest: Duration, and latest: Duration) -> Int {
    let now = now
    return state.withLock { $0.heap.count(dueIn: (now + earliest)...(now + latest)) }
  }

  /// Runs every entry due by now, in due order, outside the lock; then asks the driver to wake
  /// the scheduler for the next one. Called by the driver.
  package func fireDue() {
    let due = state.withLock { state -> [@Sendable () -> Void] in
      state.armedFor = nil
      let now = driver.now
      var actions: [@Sendable () -> Void] = []
      while let entry = state.heap.popDue(at: now) { actions.append(entry.action) }
      rearm(&state)
      return actions
    }
    for action in due { action() }
  }

  /// Asks the driver to wake the scheduler for the earliest entry, unless it was asked to
  /// already. Under the lock, so two requests never cross.
  private func rearm(_ state: inout State) {
    guard let earliest = state.heap.earliest, state.armedFor != earliest else { return }
    state.armedFor = earliest
    driver.wake(self, at: earliest)
  }
}
