import Dispatch
import Foundation

/// Runs a foreign operation (an `Operation` of your own) for managers and holds its waiters.
///
/// Each foreign instance in hand has one adapter, found by the instance's identity
/// (``ForeignAdapters``); every request for the instance, under any key or none, through any
/// manager, joins it as a request joins a claimed ``ConcurrentOperation``. Managers schedule,
/// index, count, cancel and report it like their own operations, so the core's guarantees hold
/// for foreign work. The foreign operation itself is never added to a queue: the adapter starts
/// it when its queue starts the adapter, and settles when it finishes (``ForeignFinishSignal``).
/// So a legacy `cancel()` that reports a pending operation finished (which corrupts
/// swift-corelibs-foundation's queue when the operation sits in one) touches no queue.
///
/// An adapter that is not its instance's (one for `waitUntilFinished`, or one a newer adapter
/// replaced once it closed) never starts the foreign operation: it waits for it.
package final class ForeignAdapter<Output: Sendable>: ConcurrentOperation<Output, any Error>,
  @unchecked Sendable
{
  // No mutable state of its own: the lifecycle lives in `ConcurrentOperation`'s state machine,
  // and which adapter may start the instance in `ForeignAdapters`.

  /// The operation doing the work.
  package let foreign: Operation
  private let readOutcome: @Sendable () -> ErasedOutcome

  /// An adapter for `foreign` that coalesces requests of its class under `key`.
  init(
    for foreign: Operation, key: some Hashable & Sendable,
    outcome: @escaping @Sendable () -> ErasedOutcome
  ) {
    self.foreign = foreign
    readOutcome = outcome
    super.init(coalescingKey: ForeignKey(operation: foreign, base: key))
    takeOver()
  }

  /// An adapter for `foreign` that only requests for the same instance join.
  init(for foreign: Operation, outcome: @escaping @Sendable () -> ErasedOutcome) {
    self.foreign = foreign
    readOutcome = outcome
    super.init()
    takeOver()
  }

  private func takeOver() {
    // Only what the foreign operation changed: unchanged values cost nothing to copy.
    if foreign.queuePriority != .normal { queuePriority = foreign.queuePriority }
    if foreign.qualityOfService != .default { qualityOfService = foreign.qualityOfService }
    // The adapter's own: the moment one released without starting the foreign operation
    // hands it on (see `released()`).
    completionBlock = { [weak self] in self?.released() }
  }

  /// The foreign operation's name (its class's when it has none): events name foreign work
  /// after the operation doing it.
  package override var name: String? {
    get { foreign.displayName }
    set {}
  }

  /// A manager claimed the adapter and is adding it to its queue: the foreign operation's
  /// dependencies, as they stand now, gate the adapter, so it is ready when started; and the
  /// adapter settles as soon as the foreign operation finishes, even while it is pending (a
  /// legacy `cancel()` may finish it then).
  package override func willEnqueue(on manager: OperationQueueManager) {
    for dependency in foreign.dependencies { addDependency(dependency) }
    ForeignFinishSignal.whenFinished(foreign) { [self] in settle(erased: readOutcome()) }
  }

  /// False: the slot is held until the foreign operation has stopped, as its queue would.
  package override var finishesImmediatelyWhenCancelled: Bool { false }

  /// Starts the foreign operation if this adapter is the instance's and nobody started it yet
  /// (it may also run elsewhere, or have finished).
  package override func main() {
    guard ForeignAdapters.claimStart(of: foreign, by: self) else { return }
    guard !foreign.isFinished, !foreign.isExecuting else { return }
    startForeignWhenReady()
  }

  /// Starts the foreign operation, which is ready; a synchronous one has finished after.
  func startForeign() {
    foreign.start()
    // This also covers an operation that finished without announcing it.
    if foreign.isFinished { settle(erased: readOutcome()) }
  }

  /// The last waiter left, or the manager cancelled everything: the foreign operation is
  /// cancelled (see ``callForeign(_:)``).
  package override func operationWasCancelled() {
    callForeign { $0.cancel() }
  }

  /// The adapter's queue released it (or, dropped, the work it followed ended). If it is still
  /// its instance's and nobody started the foreign operation (it was cancelled while pending,
  /// or its request joined other work), it finishes the operation without running it.
  private func released() {
    guard ForeignAdapters.claimStartOnRelease(of: foreign, by: self) else { return }
    callForeign { [self] _ in
      finishForeignUnrun()
      ForeignAdapters.forget(foreign, by: self)
    }
  }

  /// Finishes the foreign operation without running it, as its queue would once it is
  /// cancelled: cancels it and, if it can be, starts it (a cancelled operation finishes once
  /// started). Finished before its dependencies, it is detached from them, so that it may be
  /// released first.
  func finishForeignUnrun() {
    guard !foreign.isFinished, !foreign.isExecuting else { return }
    foreign.cancel()
    if foreign.isReady, !foreign.isFinished, !foreign.isExecuting { foreign.start() }
    if foreign.isFinished { foreign.detachFromUnfinishedDependencies() }
  }

  /// Calls `body` with the foreign operation on a serial queue of its own, never on the
  /// thread pool that tasks and Dispatch's global queues share: a legacy `cancel()` or
  /// `start()` may block or call back. Callers were resumed before, and do not wait for it.
  func callForeign(_ body: @escaping @Sendable (Operation) -> Void) {
    let foreign = self.foreign
    DispatchQueue(label: "OperationBridge.ForeignAdapter.call").async { body(foreign) }
  }
}

extension ForeignAdapter {
  /// Waits for `operation`, run by someone else, with `waiter`, on an adapter that is not the
  /// instance's: it never starts or cancels it, so leaving never cancels `operation`.
  package static func observe<Foreign: Operation>(
    _ operation: Foreign, waiter: OperationWaiter?,
    outcome read: @escaping @Sendable (Foreign) -> ErasedOutcome
  ) -> OperationQueueManager.Admission<Output, any Error> {
    let adapter = ForeignAdapter(for: operation) { read(operation) }
    if operation.isFinished {
      adapter.settle(erased: read(operation))  // Its waiter gets the outcome at once.
    } else {
      ForeignFinishSignal.whenFinished(operation) { adapter.settle(erased: read(operation)) }
    }
    let id = waiter.flatMap { adapter.addWaiter($0) }
    return OperationQueueManager.Admission(operation: adapter, waiterID: id)
  }
}
