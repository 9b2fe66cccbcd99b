import LockedValue
import OperationCore

/// One wait between attempts: made unarmed, started once, cancellable at any moment (before
/// or after it starts, from any thread, more than once). Once cancelled it never fires.
package protocol RetryWait: Sendable {
  /// Starts counting down; does nothing if the wait was cancelled.
  func start()
  /// Stops the wait for good and lets go of its action; does not block.
  func cancel()
}

/// Where the waits a ``RetryPolicy`` puts between attempts come from: the manager's scheduler,
/// or, in tests, waits the test ends by hand.
package protocol RetryWaitSource: Sendable {
  /// An unarmed wait that, once started, calls `action` after `delay` unless cancelled first.
  func makeWait(for delay: Duration, then action: @escaping @Sendable () -> Void) -> any RetryWait
}

extension Scheduler: RetryWaitSource {
  /// A wait that, once started, is an entry of this scheduler: no thread is held while it
  /// counts down, and cancelling it takes the entry, and the action with it, out at once.
  package func makeWait(
    for delay: Duration, then action: @escaping @Sendable () -> Void
  ) -> any RetryWait {
    ScheduledRetryWait(scheduler: self, delay: delay, action: action)
  }
}

/// One wait between attempts on a ``Scheduler``. Start and cancel may race in any order: the
/// stage decides, under its lock, whether the entry is scheduled and whether it is taken out.
private final class ScheduledRetryWait: RetryWait {
  private enum Stage {
    /// Made, not started: holds the action until it is scheduled.
    case unarmed(@Sendable () -> Void)
    /// Started: the scheduler's entry `entry` holds the action.
    case armed(entry: UInt64)
    /// Cancelled: never fires.
    case cancelled
  }

  // State lives in `stage`, guarded by its lock; the rest is immutable.
  private let scheduler: Scheduler
  private let delay: Duration
  private let stage: Locked<Stage>

  init(scheduler: Scheduler, delay: Duration, action: @escaping @Sendable () -> Void) {
    self.scheduler = scheduler
    self.delay = delay
    stage = Locked(.unarmed(action))
  }

  func start() {
    stage.withLock { stage in
      guard case .unarmed(let action) = stage else { return }
      // The scheduler's lock comes after this one in the lock order (see `Locked`), and
      // `schedule` runs nothing: taking it here is safe.
      stage = .armed(entry: scheduler.schedule(after: delay, action))
    }
  }

  func cancel() {
    let armed = stage.withLock { stage -> UInt64? in
      defer { stage = .cancelled }
      guard case .armed(let entry) = stage else { return nil }
      return entry
    }
    if let armed { scheduler.cancel(armed) }
  }
}
