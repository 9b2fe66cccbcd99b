import Dispatch
import OperationCore

/// One wait between attempts: made unarmed, started once, cancellable at any moment (before
/// or after it starts, from any thread, more than once). Once cancelled it never fires.
package protocol RetryWait: Sendable {
  /// Starts counting down; does nothing if the wait was cancelled.
  func start()
  /// Stops the wait for good and releases its action; does not block.
  func cancel()
}

/// Makes the waits a ``RetryPolicy`` puts between attempts.
package protocol RetryScheduler: Sendable {
  /// An unarmed wait that, once started, calls `action` after `delay` unless cancelled first.
  func makeWait(for delay: Duration, then action: @escaping @Sendable () -> Void) -> any RetryWait
}

/// Waits with a one-shot `DispatchSourceTimer` on a global queue: no thread is held while it
/// counts down, and cancelling it releases its handler at once.
package struct DispatchRetryScheduler: RetryScheduler {
  package init() {}

  package func makeWait(
    for delay: Duration, then action: @escaping @Sendable () -> Void
  ) -> any RetryWait {
    DispatchRetryWait(delay: delay, action: action)
  }
}

/// A `DispatchSourceTimer` made inactive. `activate()` arms it (a second call does nothing) and
/// `cancel()` followed by `activate()` disposes of it whether or not it was armed, so start and
/// cancel may race in any order.
private final class DispatchRetryWait: RetryWait, @unchecked Sendable {
  // Only the timer is stored, and dispatch sources are safe to use from any thread.
  private let timer: any DispatchSourceTimer

  init(delay: Duration, action: @escaping @Sendable () -> Void) {
    timer = DispatchSource.makeTimerSource(queue: .global())
    timer.schedule(deadline: .now() + delay.timeInterval)
    timer.setEventHandler { [timer] in
      // One shot: cancelling releases the handler (and what it captured) now.
      timer.cancel()
      action()
    }
  }

  func start() {
    timer.activate()
  }

  func cancel() {
    timer.cancel()
    // A source must be activated before it is released, even a cancelled one.
    timer.activate()
  }
}
