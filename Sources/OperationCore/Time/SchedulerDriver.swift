import Dispatch

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What drives a ``Scheduler``: reads its clock, and wakes it when its earliest entry is due.
package protocol SchedulerDriver: AnyObject, Sendable {
  /// The clock's current instant.
  var now: ClockInstant { get }

  /// Asks for `scheduler`'s ``Scheduler/fireDue()`` once the clock reaches `due`, in place of
  /// any earlier request. Called under the scheduler's lock: it must call nothing out, and take
  /// no lock that is held anywhere while a scheduler is called.
  func wake(_ scheduler: Scheduler, at due: ClockInstant)
}

/// A clock that drives the schedulers on it itself, instead of through a Dispatch timer: a
/// test clock (`TestClock`, in `OperationBridgeTesting`) fires due entries when the test
/// advances it.
package protocol SchedulerDrivingClock: Sendable {
  /// A driver for one new scheduler on this clock.
  func makeSchedulerDriver() -> any SchedulerDriver
}

extension ClockInstant {
  /// The continuous clock's current instant, counted from the system clock's own origin.
  ///
  /// Read from the system clock that `ContinuousClock` reads, without building a
  /// `ContinuousClock.Instant` and subtracting an origin: an operation with event subscribers
  /// reads the clock when it starts and when it settles.
  @Sendable
  static func now() -> ClockInstant {
    var time = timespec()
    clock_gettime(continuousClockID, &time)
    return ClockInstant(
      sinceOrigin: Duration(
        secondsComponent: Int64(time.tv_sec),
        attosecondsComponent: Int64(time.tv_nsec) * 1_000_000_000))
  }

  // The one platform branch of the clock: the system clock `ContinuousClock` reads, which
  // keeps counting while the machine sleeps (docs/PLATFORM-NOTES.md).
  #if canImport(Darwin)
    private static var continuousClockID: clockid_t { CLOCK_MONOTONIC_RAW }
  #else
    private static var continuousClockID: clockid_t { CLOCK_BOOTTIME }
  #endif
}

/// Wakes a scheduler with one Dispatch timer on a global queue, rescheduled for its earliest
/// entry: no thread is held while it counts down.
final class DispatchTimerDriver: SchedulerDriver, @unchecked Sendable {
  // `timer` is made and rescheduled only in `wake(_:at:)`, under the scheduler's lock, which
  // guards it; `readNow` is immutable. (A Dispatch source may be used from any thread, but is
  // not marked `Sendable` on Linux.)
  private let readNow: @Sendable () -> ClockInstant
  private var timer: (any DispatchSourceTimer)?

  /// A driver reading the clock through `now`.
  init(now: @escaping @Sendable () -> ClockInstant) {
    readNow = now
  }

  deinit {
    timer?.cancel()
  }

  var now: ClockInstant { readNow() }

  func wake(_ scheduler: Scheduler, at due: ClockInstant) {
    let timer = self.timer ?? makeTimer(waking: scheduler)
    // The clock and Dispatch count from different origins: the timer is set by the time left.
    let left = min(max(due - now, .zero), .century)
    timer.schedule(deadline: .now() + left.timeInterval, leeway: .nanoseconds(0))
  }

  private func makeTimer(waking scheduler: Scheduler) -> any DispatchSourceTimer {
    let timer = DispatchSource.makeTimerSource(queue: .global())
    // Weak: an armed source outlives its owner until cancelled, and may fire once after it.
    timer.setEventHandler { [weak scheduler] in scheduler?.fireDue() }
    timer.activate()
    self.timer = timer
    return timer
  }
}
