import LockedValue
import OperationCore

/// One task waiting on a ``ManagerClock`` (``ManagerClock/sleep(until:then:)``): its
/// continuation and the scheduler entry that ends the wait, met with the task's cancellation
/// under one lock, so exactly one of them resumes it. The entry runs the action, outside the
/// lock, and resumes the task with its result.
final class ClockWait<Value: Sendable>: Sendable {
  typealias Continuation = CheckedContinuation<Value, any Error>

  private enum Stage {
    /// The task has not suspended yet.
    case starting
    /// Suspended; the scheduler's entry `entry` ends the wait.
    case waiting(Continuation, entry: UInt64)
    /// Cancelled before it suspended.
    case cancelled
    /// The entry fired, or the task was cancelled while it waited: whichever came first
    /// resumes it.
    case done
  }

  // State lives in `stage`, guarded by its lock; the rest is immutable.
  private let stage = Locked(Stage.starting)
  private let scheduler: Scheduler
  private let action: @Sendable () throws -> Value

  init(scheduler: Scheduler, action: @escaping @Sendable () throws -> Value) {
    self.scheduler = scheduler
    self.action = action
  }

  /// The task suspended: the entry is scheduled, unless the task was cancelled first.
  func attach(_ continuation: Continuation, until deadline: ClockInstant) {
    let cancelled = stage.withLock { stage in
      guard case .starting = stage else { return true }
      // The scheduler's lock comes after this one in the lock order (see `Locked`), and
      // `schedule` runs nothing: taking it here is safe.
      let entry = scheduler.schedule(at: deadline) { [self] in fire() }
      stage = .waiting(continuation, entry: entry)
      return false
    }
    if cancelled { continuation.resume(throwing: CancellationError()) }
  }

  /// The deadline came: runs the action and resumes the task with its result, even if the
  /// task is cancelled meanwhile (what the action did is not lost).
  private func fire() {
    let taken = stage.withLock { stage -> Continuation? in
      guard case .waiting(let continuation, _) = stage else { return nil }
      stage = .done
      return continuation
    }
    guard let continuation = taken else { return }
    continuation.resume(with: Result { try action() })
  }

  /// The task was cancelled: a wait not yet ended ends with `CancellationError`, its entry
  /// taken out.
  func cancel() {
    let waiting = stage.withLock { stage -> (Continuation, UInt64)? in
      switch stage {
      case .starting:
        stage = .cancelled
        return nil
      case .waiting(let continuation, let entry):
        stage = .done
        return (continuation, entry)
      case .cancelled, .done:
        return nil
      }
    }
    guard let (continuation, entry) = waiting else { return }
    scheduler.cancel(entry)
    continuation.resume(throwing: CancellationError())
  }
}
