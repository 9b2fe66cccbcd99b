import Dispatch
import LockedValue

/// One caller's view of an operation's progress: hands it the values, one call at a time,
/// and never after the caller has its outcome.
///
/// - **Serial.** One delivery is in flight at a time, on the caller's callback queue (a global
///   dispatch queue when it has none): never on the reporting thread, so a slow observer never
///   holds up the work, and never under a lock.
/// - **Newest value, no backlog.** Values offered while a delivery is in flight replace each
///   other; when the call returns, the observer is handed the newest one only.
/// - **Never backwards.** Every value carries its place in the operation's sequence of reports;
///   an older one than the observer already has is dropped, whatever order offers arrive in.
/// - **Never after the outcome.** The caller's waiter closes the observer before it hands over
///   the outcome (``OperationWaiter/closing(_:)``): with a delivery in flight, the outcome is
///   handed over by that delivery once its call returns, after the newest value.
package final class ProgressObserver: Sendable {
  /// A reported value and its place in the operation's sequence of reports (from 1).
  package struct Stamped: Sendable {
    let sequence: UInt64
    let progress: OperationProgress
  }

  private enum Stage {
    /// No delivery in flight.
    case idle
    /// A delivery is in flight (queued or calling the handler).
    case delivering
    /// Closed while a delivery was in flight: it hands over the outcome when it ends.
    case closing(handOver: @Sendable () -> Void)
    /// Closed: nothing is called again.
    case closed
  }

  private struct State {
    var stage = Stage.idle
    /// The newest value offered.
    var newest: Stamped?
    /// The sequence number of the last value handed to the handler.
    var delivered: UInt64 = 0
    /// The progress this observer follows, while it follows one, so that closing leaves it.
    weak var source: ProgressHub?
  }

  private enum Step {
    case call(OperationProgress)
    case handOver(@Sendable () -> Void)
    case stop
  }

  // State lives in `state`, guarded by its lock; the other properties are immutable.
  private let state = Locked(State())
  private let callbackQueue: CallbackQueue?
  private let handler: Handler

  /// How the handler is called: synchronously on the callback queue, or awaited in its own
  /// isolation.
  private enum Handler {
    case onQueue(@Sendable (OperationProgress) -> Void)
    case isolated(@isolated(any) @Sendable (OperationProgress) -> Void)
  }

  /// An observer that calls `handler` on `callbackQueue` (a global dispatch queue when nil).
  package init(
    callbackQueue: CallbackQueue?, handler: @escaping @Sendable (OperationProgress) -> Void
  ) {
    self.callbackQueue = callbackQueue
    self.handler = .onQueue(handler)
  }

  /// An observer that calls `handler` in its own isolation (the main actor for a closure
  /// written in main-actor code; a global dispatch queue for a nonisolated one), from a task of
  /// its own while a delivery is in flight.
  package init(isolated handler: @escaping @isolated(any) @Sendable (OperationProgress) -> Void) {
    self.callbackQueue = nil
    self.handler = .isolated(handler)
  }

  /// Starts following `hub`; false when the observer is closed already (its caller has its
  /// outcome), and then it must not be added.
  func follow(_ hub: ProgressHub) -> Bool {
    state.withLock { state in
      switch state.stage {
      case .idle, .delivering:
        state.source = hub
        return true
      case .closing, .closed:
        return false
      }
    }
  }

  /// Offers `value`: starts a delivery unless one is in flight (which then hands over the
  /// newest value when its call returns). Values older than the newest are dropped.
  func offer(_ value: Stamped) {
    let starts = state.withLock { state -> Bool in
      guard value.sequence > (state.newest?.sequence ?? 0) else { return false }
      switch state.stage {
      case .idle:
        state.newest = value
        state.stage = .delivering
        return true
      case .delivering:
        state.newest = value
        return false
      case .closing, .closed:
        return false
      }
    }
    guard starts else { return }
    switch handler {
    case .onQueue(let handler):
      (callbackQueue ?? .dispatch(.global())).execute { [self] in drain(handler) }
    case .isolated(let handler):
      // Off the cooperative pool, as a handler on a queue is: the handler may block.
      Task(executorPreference: GlobalQueueExecutor.shared) { [self] in await drain(handler) }
    }
  }

  /// Closes the observer, then runs `handOver` (which hands the caller its outcome): at once
  /// when no delivery is in flight, else when that delivery ends. Called once, by the caller's
  /// waiter, outside any lock.
  package func close(then handOver: @escaping @Sendable () -> Void) {
    let (now, source) = state.withLock { state -> (Bool, ProgressHub?) in
      let source = state.source
      state.source = nil
      switch state.stage {
      case .idle, .closing, .closed:
        state.stage = .closed
        return (true, source)
      case .delivering:
        state.stage = .closing(handOver: handOver)
        return (false, source)
      }
    }
    source?.remove(self)
    if now { handOver() }
  }

  /// The delivery: calls `handler` with the newest value until none is newer, then ends
  /// (handing over the outcome if the observer was closed meanwhile).
  private func drain(_ handler: @Sendable (OperationProgress) -> Void) {
    while true {
      switch nextStep() {
      case .call(let progress): handler(progress)
      case .handOver(let handOver): return handOver()
      case .stop: return
      }
    }
  }

  /// The delivery to an isolated handler: as the one on a queue, awaiting each call in the
  /// handler's isolation.
  private func drain(
    _ handler: @isolated(any) @Sendable (OperationProgress) -> Void
  ) async {
    while true {
      switch nextStep() {
      case .call(let progress): await handler(progress)
      case .handOver(let handOver): return handOver()
      case .stop: return
      }
    }
  }

  /// What the delivery does next: call the handler with a newer value, hand over the outcome
  /// of a closed observer, or stop.
  private func nextStep() -> Step {
    state.withLock { state -> Step in
      if let newest = state.newest, newest.sequence > state.delivered {
        state.delivered = newest.sequence
        return .call(newest.progress)
      }
      switch state.stage {
      case .closing(let handOver):
        state.stage = .closed
        return .handOver(handOver)
      case .idle, .delivering, .closed:
        if case .delivering = state.stage { state.stage = .idle }
        return .stop
      }
    }
  }
}

/// Runs a task's nonisolated code on a global dispatch queue instead of the cooperative pool,
/// which a blocking progress handler would starve.
private final class GlobalQueueExecutor: TaskExecutor {
  static let shared = GlobalQueueExecutor()

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
