import LockedValue

extension Scheduler {
  /// Suspends the calling task until the clock reaches `deadline` (at once if it has), holding
  /// no thread: an entry of this scheduler resumes it.
  ///
  /// - Throws: `CancellationError` at once when the task is cancelled, before or while it
  ///   waits; the entry is taken out then.
  package func sleep(until deadline: ClockInstant) async throws {
    // Reached already: at once, as every clock's sleep returns, whether or not the clock moves.
    guard now < deadline else { return try Task.checkCancellation() }
    let sleeper = Sleeper()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        sleeper.attach(continuation, until: deadline, on: self)
      }
    } onCancel: {
      sleeper.cancel()
    }
  }
}

/// One sleeping task: its continuation, and the entry that resumes it, met with its
/// cancellation under one lock, so exactly one of them resumes it.
private final class Sleeper: Sendable {
  private enum Stage {
    /// The task has not suspended yet.
    case starting
    /// Suspended; the entry `entry` of `scheduler` resumes it.
    case sleeping(CheckedContinuation<Void, any Error>, entry: UInt64, scheduler: Scheduler)
    /// Cancelled before it suspended.
    case cancelled
    /// Resumed.
    case done
  }

  // State lives in `stage`, guarded by its lock.
  private let stage = Locked(Stage.starting)

  /// The task suspended: the entry is scheduled, unless the task was cancelled first.
  func attach(
    _ continuation: CheckedContinuation<Void, any Error>, until deadline: ClockInstant,
    on scheduler: Scheduler
  ) {
    let cancelled = stage.withLock { stage in
      guard case .starting = stage else { return true }
      // The scheduler's lock comes after this one in the lock order (see `Locked`), and
      // `schedule` runs nothing: taking it here is safe.
      let entry = scheduler.schedule(at: deadline) { [self] in wake() }
      stage = .sleeping(continuation, entry: entry, scheduler: scheduler)
      return false
    }
    if cancelled { continuation.resume(throwing: CancellationError()) }
  }

  /// The deadline came.
  private func wake() {
    let continuation = stage.withLock { stage -> CheckedContinuation<Void, any Error>? in
      guard case .sleeping(let continuation, _, _) = stage else { return nil }
      stage = .done
      return continuation
    }
    continuation?.resume()
  }

  /// The task was cancelled.
  func cancel() {
    typealias Sleeping = (CheckedContinuation<Void, any Error>, UInt64, Scheduler)
    let sleeping = stage.withLock { stage -> Sleeping? in
      switch stage {
      case .starting:
        stage = .cancelled
        return nil
      case .sleeping(let continuation, let entry, let scheduler):
        stage = .done
        return (continuation, entry, scheduler)
      case .cancelled, .done:
        return nil
      }
    }
    guard let (continuation, entry, scheduler) = sleeping else { return }
    scheduler.cancel(entry)
    continuation.resume(throwing: CancellationError())
  }
}
