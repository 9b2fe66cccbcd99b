import Dispatch
import Foundation
import LockedValue

/// Runs a foreign operation (an `Operation` of your own) for managers and holds its waiters.
///
/// Each foreign instance in hand has one adapter, found by its identity (``ForeignAdapters``);
/// every request for it, under any key or none, through any manager, joins that adapter
/// through its lock, as a request joins a claimed ``ConcurrentOperation``, whether or not a
/// manager has claimed it yet. Managers schedule, index, count, cancel and
/// report the adapter like their own operations, so the core's guarantees hold for foreign
/// work. The foreign operation is never added to a queue: the adapter starts it when its queue
/// starts the adapter, and settles when it finishes (``ForeignFinishSignal``), with the outcome
/// it reads from it, or, for an operation built around a ``BridgeHandler``, with what that
/// handler receives first. So a foreign `cancel()` that reports a pending operation finished
/// (which corrupts swift-corelibs-foundation's queue when the operation sits in one) touches no
/// queue. The adapter holds the foreign operation until it has finished, and no longer: a bridge
/// handler notices when the operation lets it go.
///
/// An adapter that is not its instance's (one for `waitUntilFinished`, or one that a newer
/// adapter replaced once it closed) never starts the foreign operation: it waits for it.
package final class ForeignAdapter<Output: Sendable>: ConcurrentOperation<Output, any Error>,
  @unchecked Sendable
{
  // The foreign operation lives in `held`, guarded by its lock; the other fields are constant.
  // The lifecycle lives in `ConcurrentOperation`'s state machine, and who may start the
  // instance in `ForeignAdapters`.

  /// The foreign operation until it has finished.
  private let held: Locked<Operation?>
  private let foreignName: String
  /// Reads the outcome of the finished foreign operation; nil when a bridge handler delivers it.
  private let readOutcome: (@Sendable (Operation) -> ErasedOutcome)?

  /// An adapter for `foreign` that requests for the same instance join, and requests of its
  /// value type with an equal `key`; `read` reads its
  /// outcome once it has finished (nil: a bridge handler delivers it).
  init<Foreign: Operation>(
    for foreign: Foreign, key: ForeignKey?,
    outcome read: (@Sendable (Foreign) -> ErasedOutcome)?
  ) {
    held = Locked(foreign)
    foreignName = foreign.displayName
    if let read {
      readOutcome = { read(unsafeDowncast($0, to: Foreign.self)) }
    } else {
      readOutcome = nil
    }
    if let key { super.init(coalescingKey: key) } else { super.init() }
    // Only what the foreign operation changed: unchanged values cost nothing to copy.
    if foreign.queuePriority != .normal { queuePriority = foreign.queuePriority }
    if foreign.qualityOfService != .default { qualityOfService = foreign.qualityOfService }
    completionBlock = { [weak self] in self?.released() }
    passesPriorityOn = true
  }

  /// The operation doing the work; nil once it has finished.
  package var foreign: Operation? { held.withLock { $0 } }

  /// The foreign operation's name: events name foreign work after the operation doing it.
  package override var name: String? {
    get { foreignName }
    set {}
  }

  /// Claimed, going into its queue: the foreign operation's dependencies, as they stand now,
  /// gate the adapter; and the adapter learns when the foreign operation finishes, even while
  /// pending (its own `cancel()` may finish it then).
  package override func willEnqueue(on manager: OperationQueueManager) {
    guard let foreign else { return }
    for dependency in foreign.dependencies { addDependency(dependency) }
    ForeignFinishSignal.whenFinished(foreign) { [self] in foreignFinished() }
  }

  /// False until the foreign operation has finished: the slot is held until it has stopped, as
  /// its queue would hold it.
  package override var finishesImmediatelyWhenCancelled: Bool { held.withLock { $0 == nil } }

  /// Starts the foreign operation, if this adapter is the instance's and nobody started it (it
  /// may also run elsewhere, or have finished).
  package override func main() {
    guard let foreign, ForeignAdapters.claimStart(of: foreign, by: self) else { return }
    guard !foreign.isFinished, !foreign.isExecuting else { return }
    startWhenReady(foreign)
  }

  /// Starts `foreign`, which is ready; a synchronous one has finished after (also one that did
  /// not announce it).
  func start(_ foreign: Operation) {
    foreign.start()
    if foreign.isFinished { foreignFinished() }
  }

  /// The foreign operation has finished: the adapter lets it go (its instance's entry goes with
  /// it) and settles with its outcome, unless a bridge handler delivers that.
  func foreignFinished() {
    guard let foreign = held.withLock({ $0.take() }) else { return }
    ForeignAdapters.update(foreign, by: self) {
      $0 = nil; return true
    }
    if let readOutcome { settle(erased: readOutcome(foreign)) }
  }

  /// The adapter's priority changed with its callers: the foreign operation gets it as its
  /// `queuePriority`, so work that reads its own priority (to prioritise a download, say) sees
  /// it. Only for an adapter a manager claimed: one that waits for an operation run elsewhere
  /// never changes it.
  package override func priorityDidChange(
    to priority: Operation.QueuePriority, whileExecuting: Bool
  ) {
    guard isClaimed else { return }
    callForeign { $0.queuePriority = priority }
  }

  /// The last waiter left, or the manager cancelled everything: so is the foreign operation.
  package override func operationWasCancelled() {
    callForeign { $0.cancel() }
  }

  /// Released by its queue (or, dropped, once the work it followed ended): if still the
  /// instance's, it forgets the instance; one nobody started (the adapter was cancelled while
  /// pending, or joined other work) it first finishes unrun, as a queue finishes a cancelled
  /// operation: cancelled, then started if it can be. One finished before its dependencies is
  /// detached from them, so that it may be released first.
  private func released() {
    guard let foreign else { return }  // Finished: its entry went then.
    let finishesUnrun = ForeignAdapters.update(foreign, by: self) { entry in
      if entry?.startClaimed == true { entry = nil }
      entry?.startClaimed = true
      return entry != nil
    }
    guard finishesUnrun else { return }
    callForeign { [self] foreign in
      if !foreign.isFinished, !foreign.isExecuting {
        foreign.cancel()
        if foreign.isReady, !foreign.isFinished, !foreign.isExecuting { foreign.start() }
        if foreign.isFinished { foreign.detachFromUnfinishedDependencies() }
      }
      ForeignAdapters.update(foreign, by: self) {
        $0 = nil; return true
      }
    }
  }

  /// Calls `body` with the foreign operation, unless it has finished, on a serial queue of its
  /// own, never on the pool that tasks and Dispatch's global queues share: a foreign `cancel()`
  /// or `start()` may block or call back. Callers were resumed before, and never wait for it.
  func callForeign(_ body: @escaping @Sendable (Operation) -> Void) {
    guard let foreign else { return }
    DispatchQueue(label: "OperationBridge.ForeignAdapter.call").async { body(foreign) }
  }

  /// Waits for `operation`, run by someone else, with `waiter`, on an adapter that is not the
  /// instance's: it never starts or cancels `operation`.
  package static func observe<Foreign: Operation>(
    _ operation: Foreign, waiter: OperationWaiter?,
    outcome read: (@Sendable (Foreign) -> ErasedOutcome)?
  ) -> OperationQueueManager.Admission<Output, any Error> {
    let adapter = ForeignAdapter(for: operation, key: nil, outcome: read)
    if operation.isFinished {
      adapter.foreignFinished()  // Its waiter gets the outcome at once.
    } else {
      ForeignFinishSignal.whenFinished(operation) { adapter.foreignFinished() }
    }
    return OperationQueueManager.Admission(
      operation: adapter, waiterID: waiter.flatMap { adapter.addWaiter($0) })
  }
}
