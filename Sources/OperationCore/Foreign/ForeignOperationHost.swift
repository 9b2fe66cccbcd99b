import Dispatch
import Foundation

/// Stands in for a foreign operation (an `Operation` of your own) on a manager's queue.
///
/// The manager schedules, indexes, counts, cancels and reports events for the host, a
/// ``ConcurrentOperation`` like any other, so every guarantee of the core holds for foreign work
/// unchanged: exactly-once delivery, per-waiter cancellation, coalescing, cancel-all, caller
/// deadlines, the event grammar. The foreign operation itself is never added to a queue: the
/// host starts it when the queue starts the host, and settles when it finishes (noticed by a
/// ``ForeignFinishWatch``). So a legacy `cancel()` that reports a pending operation finished
/// (which corrupts swift-corelibs-foundation's queue when the operation sits in one) touches no
/// queue at all; the host, which finishes only once started, is what the queue sees.
///
/// A host that only observes an operation run by someone else is never enqueued: it just
/// collects waiters, and its cancellation (its last waiter leaving) does not reach the foreign
/// operation.
package final class ForeignOperationHost<Output: Sendable>: ConcurrentOperation<Output, any Error>,
  @unchecked Sendable
{
  // No mutable state of its own: everything below is constant; the lifecycle lives in
  // `ConcurrentOperation`'s state machine.

  /// The operation doing the work.
  package let foreign: Operation
  private let readOutcome: @Sendable () -> ErasedOutcome
  private let runsForeign: Bool

  /// A host that runs `foreign` on its manager's queue; `key` coalesces identical requests.
  init(
    running foreign: Operation, key: some Hashable & Sendable,
    outcome: @escaping @Sendable () -> ErasedOutcome
  ) {
    self.foreign = foreign
    readOutcome = outcome
    runsForeign = true
    super.init(coalescingKey: key)
    // Only what the foreign operation changed: unchanged values cost nothing to copy.
    if foreign.queuePriority != .normal { queuePriority = foreign.queuePriority }
    if foreign.qualityOfService != .default { qualityOfService = foreign.qualityOfService }
    // The foreign operation's dependencies gate the host, so it is ready when started.
    for dependency in foreign.dependencies { addDependency(dependency) }
    // The only moment a host cancelled before it started can hand that cancellation on.
    completionBlock = { [weak self] in self?.hostDidFinish() }
  }

  /// A host that waits for `foreign`, run by someone else; it is never enqueued.
  init(observing foreign: Operation, outcome: @escaping @Sendable () -> ErasedOutcome) {
    self.foreign = foreign
    readOutcome = outcome
    runsForeign = false
    super.init()
  }

  /// The foreign operation's name (its class's when it has none), read only when asked: events
  /// name foreign work after the operation doing it.
  package override var name: String? {
    get { foreign.displayName }
    set {}
  }

  /// The manager claimed this host and is adding it to its queue: the host stands in for the
  /// foreign operation from now on, owning it unless another host does. Not before: a host
  /// built for a request that then joined work in flight never owns what it holds, so it
  /// cannot take the operation from the host that won (which would then never start it).
  package override func willEnqueue(on manager: OperationQueueManager) {
    if runsForeign { ForeignStart.adopt(foreign, by: self) }
  }

  /// False: the slot is held until the foreign operation has stopped, as its queue would.
  package override var finishesImmediatelyWhenCancelled: Bool { false }

  /// Starts the foreign operation, unless it has finished (then settles with its outcome) or
  /// already runs elsewhere (then the watch settles the host when it finishes).
  package override func main() {
    if foreign.isFinished {
      settle(erased: readOutcome())
      return
    }
    if foreign.isExecuting { return }
    startForeign(readinessChecksLeft: Self.readinessChecks)
  }

  /// How many times a foreign operation whose dependencies have all finished is checked for
  /// readiness, ``readinessCheckInterval`` apart, before the host gives up on it.
  private static var readinessChecks: Int { 100 }
  /// How long apart the readiness checks are.
  private static var readinessCheckInterval: DispatchTimeInterval { .microseconds(100) }

  /// Starts the foreign operation once it is ready.
  ///
  /// Its dependencies are the host's too, so when the queue starts the host they have all
  /// finished. But swift-corelibs-foundation marks the dependents of a finished operation
  /// ready one after another, on the finishing thread: the queue may start the host before the
  /// foreign operation is marked ready (one await in five or more, with a dependency finishing
  /// on another queue). So while every dependency has finished, readiness is checked again
  /// shortly, off this thread, a bounded number of times. A dependency that has not finished
  /// (one added after the call) is ``ForeignOperationError/notReady(operationName:)`` at once:
  /// starting an operation that is not ready traps in Foundation.
  private func startForeign(readinessChecksLeft: Int) {
    guard foreign.isReady else {
      guard readinessChecksLeft > 0, foreign.dependencies.allSatisfy(\.isFinished) else {
        finish(throwing: ForeignOperationError.notReady(operationName: foreign.displayName))
        return
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + Self.readinessCheckInterval) {
        self.startForeign(readinessChecksLeft: readinessChecksLeft - 1)
      }
      return
    }
    ForeignStart.start(foreign, by: self)
    // A synchronous operation has finished now; this also covers one that never announced it.
    if foreign.isFinished { settle(erased: readOutcome()) }
  }

  /// The last waiter left, or the manager cancelled everything: the foreign operation is
  /// cancelled on another thread, since a legacy `cancel()` may block or call back. Not while
  /// another host, built for a request that raced this one's, still waits for it: its callers
  /// did not leave (the last of them to leave cancels it).
  package override func operationWasCancelled() {
    let foreign = self.foreign
    guard !ForeignStart.isWanted(foreign, byOtherThan: self) else { return }
    DispatchQueue.global().async { foreign.cancel() }
  }

  /// Reports the foreign operation's finish from now on (at once if it has finished).
  func watchForeign() {
    ForeignFinishWatch.watch(foreign) { [weak self] in
      guard let self else { return }
      settle(erased: readOutcome())
    }
  }

  /// After the host finished: gives the foreign operation up; one it never started is
  /// cancelled and started, so that it finishes (see ``ForeignStart/release(_:by:)``).
  private func hostDidFinish() {
    guard runsForeign else { return }
    ForeignStart.release(foreign, by: self)
  }
}

extension ForeignOperationHost {
  /// Waits for `operation`, run by someone else, with `waiter`: delivers at once if it has
  /// finished; otherwise registers the waiter on a new observing host. Leaving never cancels
  /// `operation`.
  package static func observe<Foreign: Operation>(
    _ operation: Foreign, waiter: OperationWaiter,
    outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) -> ForeignAdmission<Output> {
    if operation.isFinished { return .finished(read(operation)) }
    let host = ForeignOperationHost(observing: operation) { read(operation) }
    let id = host.addWaiter(waiter)
    host.watchForeign()
    return .waiting(host, waiterID: id)
  }
}

/// Where a request for foreign work waits.
package enum ForeignAdmission<Output: Sendable> {
  /// The operation had finished before the request: its outcome, to hand over at once.
  case finished(ErasedOutcome)
  /// Waiting on `operation` (a host) with the waiter's identity; nil when none was given or it
  /// was delivered at once.
  case waiting(ConcurrentOperation<Output, any Error>, waiterID: OperationWaiter.ID?)
}
