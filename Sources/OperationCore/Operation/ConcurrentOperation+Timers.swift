import Foundation
import Synchronization

// The operation's timers on its manager's clock: its timeout, its stall report and the end of a
// linger. Each is an entry of the manager's scheduler; the timeout and the stall report are kept
// for the release to take out.
extension ConcurrentOperation {
  func scheduleTimeout(
    after timeout: Duration, on manager: (any ClaimingManager)?
  ) {
    let error = OperationTimeoutError(
      timeout: timeout, operationName: name ?? String(describing: type(of: self)))
    let scheduler = manager?.scheduler ?? .continuous
    let entry = scheduler.schedule(after: timeout) { [weak self] in
      guard let self else { return }
      let (action, manager) = decide { $0.timeOut(error) }
      guard case .deliver(let delivery, _) = consume action else { return }
      notify(.cancelled)  // A timeout counts as a cancellation; no `super.cancel()` follows.
      deliver(delivery, manager: manager, hookOnOwnQueue: true)
    }
    keep(entry, in: timeoutEntry, on: scheduler)
  }

  /// Keeps a timer's `entry` for the release to take out, or takes it out now if the operation
  /// was released meanwhile (that release may have looked before the entry was kept).
  func keep(_ entry: UInt64, in slot: borrowing Atomic<UInt64>, on scheduler: Scheduler) {
    slot.store(entry, ordering: .sequentiallyConsistent)
    guard state.withLock({ $0.isFinished }) else { return }
    if slot.exchange(0, ordering: .sequentiallyConsistent) == entry { scheduler.cancel(entry) }
  }

  /// Takes the timeout and stall report of a released operation out of the scheduler.
  func takeOutTimers(on manager: (any ClaimingManager)?) {
    // Two exchanges, no array: this runs on every release.
    let timeout = timeoutEntry.exchange(0, ordering: .sequentiallyConsistent)
    let stall = stallEntry.exchange(0, ordering: .sequentiallyConsistent)
    guard timeout != 0 || stall != 0 else { return }
    let scheduler = manager?.scheduler ?? .continuous
    if timeout != 0 { scheduler.cancel(timeout) }
    if stall != 0 { scheduler.cancel(stall) }
  }

  /// Arms the end of a linger on the manager's clock: the work is cancelled then, unless a
  /// caller came meanwhile. The entry is recorded for that caller to disarm; one a caller beat
  /// (the linger's token tells) is taken out at once. The timer holds the operation weakly:
  /// work that settled and went meanwhile has nothing left to cancel.
  func scheduleLingerEnd(
    _ linger: OperationStateMachine.Linger, on manager: (any ClaimingManager)?
  ) {
    let token = linger.token
    let scheduler = manager?.scheduler ?? .continuous
    let entry = scheduler.schedule(after: linger.duration) { [weak self] in
      self?.lingerEnded(token)
    }
    if !state.withLock({ $0.lingerArmed(entry, token: token) }) { scheduler.cancel(entry) }
  }

  /// A linger ran out: cancels the work if nobody came since it began.
  func lingerEnded(_ token: OperationWaiter.ID) {
    let releaseIfExecuting = finishesImmediatelyWhenCancelled
    let (action, manager) = decide {
      $0.lingerEnded(token, releaseIfExecuting: releaseIfExecuting)
    }
    guard case .deliver(let delivery, _) = consume action else { return }
    deliver(delivery, manager: manager, hookOnOwnQueue: true)
    super.cancel()
  }

  func scheduleStallCheck(
    after threshold: Duration, on manager: any ClaimingManager
  ) {
    let entry = manager.scheduler.schedule(after: threshold) { [weak self] in
      guard let self else { return }
      let wakes = state.withLock { state in
        publishEvents(of: state.stalled(after: threshold), in: &state)
      }
      wakes.run()
    }
    keep(entry, in: stallEntry, on: manager.scheduler)
  }
}
