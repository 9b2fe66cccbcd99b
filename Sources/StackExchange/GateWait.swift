import LockedValue
import OperationCore

/// One task waiting for a ``BackoffGate`` to open: its continuation and the scheduler entry
/// that ends the wait, met with the task's cancellation under one lock, so exactly one of them
/// resumes it. The entry's action admits the request itself (see
/// ``BackoffGate/whenOpen(site:longest:_:)``), or waits again for a backoff recorded meanwhile.
final class GateWait<Request: Sendable>: Sendable {
  typealias Continuation = CheckedContinuation<(request: Request, waited: Duration), any Error>

  private enum Stage {
    /// The task has not suspended yet.
    case starting
    /// Suspended; the scheduler's entry `entry` ends the wait.
    case waiting(Continuation, entry: UInt64)
    /// The entry fired and decides, outside the lock; `cancelled` once the task was cancelled
    /// meanwhile.
    case firing(Continuation, cancelled: Bool)
    /// Cancelled before it suspended.
    case cancelled
    /// Resumed.
    case done
  }

  // State lives in `stage`, guarded by its lock; the rest is immutable.
  private let stage = Locked(Stage.starting)
  private let gate: BackoffGate
  private let site: String
  private let longest: Duration
  private let start: ClockInstant
  private let admit: @Sendable () throws -> Request

  init(
    gate: BackoffGate, site: String, longest: Duration, since start: ClockInstant,
    admit: @escaping @Sendable () throws -> Request
  ) {
    self.gate = gate
    self.site = site
    self.longest = longest
    self.start = start
    self.admit = admit
  }

  /// The task suspended: the entry is scheduled, unless the task was cancelled first.
  func attach(_ continuation: Continuation, until deadline: ClockInstant) {
    let cancelled = stage.withLock { stage in
      guard case .starting = stage else { return true }
      // The scheduler's lock is a leaf, and `schedule` runs nothing: taking it here is safe.
      stage = .waiting(continuation, entry: schedule(at: deadline))
      return false
    }
    if cancelled { continuation.resume(throwing: CancellationError()) }
  }

  private func schedule(at deadline: ClockInstant) -> UInt64 {
    gate.scheduler.schedule(at: deadline) { [self] in fire() }
  }

  /// The deadline came: admits the request if the gate is open, ends the wait if a backoff
  /// too long was recorded meanwhile, or waits for the new deadline.
  private func fire() {
    let taken = stage.withLock { stage -> Continuation? in
      guard case .waiting(let continuation, _) = stage else { return nil }
      stage = .firing(continuation, cancelled: false)
      return continuation
    }
    guard let continuation = taken else { return }
    switch gate.opening(site: site, longest: longest) {
    case .open:
      // Admitted even if the task was cancelled meanwhile: its caller then leaves the request
      // at once when it awaits it, as any cancelled caller does.
      stage.withLock { $0 = .done }
      let waited = gate.scheduler.now - start
      do {
        continuation.resume(returning: (request: try admit(), waited: waited))
      } catch {
        continuation.resume(throwing: error)
      }
    case .tooLong(let error):
      stage.withLock { $0 = .done }
      continuation.resume(throwing: error)
    case .closed(let deadline):
      let cancelled = stage.withLock { stage in
        guard case .firing(_, cancelled: false) = stage else {
          stage = .done
          return true
        }
        stage = .waiting(continuation, entry: schedule(at: deadline))
        return false
      }
      if cancelled { continuation.resume(throwing: CancellationError()) }
    }
  }

  /// The task was cancelled.
  func cancel() {
    let waiting = stage.withLock { stage -> (Continuation, UInt64)? in
      switch stage {
      case .starting:
        stage = .cancelled
        return nil
      case .waiting(let continuation, let entry):
        stage = .done
        return (continuation, entry)
      case .firing(let continuation, _):
        stage = .firing(continuation, cancelled: true)
        return nil
      case .cancelled, .done:
        return nil
      }
    }
    guard let (continuation, entry) = waiting else { return }
    gate.scheduler.cancel(entry)
    continuation.resume(throwing: CancellationError())
  }
}
