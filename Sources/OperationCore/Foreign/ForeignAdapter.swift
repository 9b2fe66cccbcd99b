import Dispatch
import Foundation
import LockedValue

/// Runs a foreign operation (an `Operation` of your own) for managers and holds its waiters.
///
/// Every request for an instance joins its one adapter (``ForeignAdapters``) as a request joins a
/// claimed ``ConcurrentOperation``. The foreign operation sits in no queue, so a legacy `cancel()`
/// that reports it finished while pending hangs none: the instance's adapter starts it when its
/// queue starts the adapter, and settles with what it reads once it finished (or with what its
/// ``BridgeHandler`` receives). Its value type is erased: each caller names its own.
package final class ForeignAdapter: ConcurrentOperation<any Sendable, any Error>,
  @unchecked Sendable
{
  // `held` and `joined` live under the lock of `held`; the other fields are constant.
  /// Where adapters learn that their foreign operations finished (see `whenFinished`).
  private static let finishSignals = OperationQueue()
  /// The foreign operation until it has finished.
  private let held: Locked<(foreign: Operation?, joined: Operation?)>
  /// Whether the adapter settles with the outcome it reads (not a bridge handler's).
  private let readsOutcome: Bool
  /// The type of the value it settles with.
  let valueType: Any.Type

  /// An adapter for `foreign` under `key`, at `priority` (nil: the operation's own); `built` is
  /// the value type a bridge handler delivers (nil: the adapter reads the outcome).
  init(for foreign: Operation, key: CoalescingKey?, built: Any.Type?, priority: QueuePriority?) {
    held = Locked((foreign, nil))
    readsOutcome = built == nil
    let producing = foreign as? any ResultProducingOperation
    valueType = built ?? producing.map { type(of: $0).outputType } ?? Void.self
    if let key { super.init(coalescingKey: key) } else { super.init() }
    name = foreign.name ?? "\(type(of: foreign))"  // Events name the operation doing the work.
    let priority = priority ?? foreign.queuePriority
    if priority != .normal { queuePriority = priority }
    if foreign.qualityOfService != .default { qualityOfService = foreign.qualityOfService }
    completionBlock = { [weak self] in self?.released() }
    passesPriorityOn = true
  }

  /// The operation doing the work; nil once it has finished.
  var foreign: Operation? { held.withLock { $0.foreign } }

  /// The operation doing the work for this adapter's callers: the foreign operation of the work
  /// it joined, once dropped (see ``joined(_:)``), or its own.
  var operationDoingTheWork: Operation? { held.withLock { $0.joined ?? $0.foreign } }

  /// Dropped for work in flight whose foreign operation is `operation`: what depends on the work
  /// should depend on that one, not on the dropped instance, which is left as it is.
  func joined(_ operation: Operation?) {
    held.withLock { $0.joined = operation }
  }

  /// Claimed: the foreign operation's dependencies gate the adapter, which learns when it
  /// finishes, even while pending (its own `cancel()` may finish it then).
  package override func willEnqueue(on manager: OperationQueueManager) {
    guard let foreign else { return }
    for dependency in foreign.dependencies { addDependency(dependency) }
    whenFinished(foreign)
  }

  /// Calls ``foreignFinished()`` once `foreign` has finished (at once, if it has): through a
  /// dependent in a queue never suspended, which Foundation starts then on both platforms, not
  /// through its `completionBlock`, which its owner's code may set or replace.
  private func whenFinished(_ foreign: Operation) {
    guard !foreign.isFinished else { return foreignFinished() }
    let signal = BlockOperation { [self] in foreignFinished() }
    signal.addDependency(foreign)
    Self.finishSignals.addOperation(signal)
  }

  /// The slot is held until the foreign operation has stopped, as its own queue would hold it.
  package override var finishesImmediatelyWhenCancelled: Bool {
    held.withLock { $0.foreign == nil }
  }

  /// Starts the foreign operation if this adapter is the instance's and nobody started it.
  package override func main() {
    guard let foreign else { return }
    let startsIt = ForeignAdapters.update(foreign, by: self) { entry in
      defer { entry?.startCalled = true }
      return entry?.startCalled == false
    }
    if startsIt == true, !foreign.isFinished, !foreign.isExecuting { startWhenReady(foreign) }
  }

  /// The foreign operation has finished: its entry goes, and the adapter settles with its
  /// outcome unless a bridge handler delivers that.
  func foreignFinished() {
    guard let foreign = held.withLock({ $0.foreign.take() }) else { return }
    ForeignAdapters.update(foreign, by: self) { $0 = nil }
    guard readsOutcome else { return }
    settle(
      erased: (foreign as? any ResultProducingOperation)?.erasedOutcome
        ?? (foreign.isCancelled ? .cancelled : .success(ValueBox(()))))
  }

  /// The callers' priority reaches the foreign operation (only from an adapter claimed or started).
  package override func priorityDidChange(to priority: QueuePriority, whileExecuting: Bool) {
    if isClaimedOrStarted { callForeign { $0.queuePriority = priority } }
  }

  /// The last caller left, or the manager cancelled everything: so is the foreign operation.
  package override func operationWasCancelled() { callForeign { $0.cancel() } }

  /// Released while still the instance's: it forgets the instance, and one nobody started it
  /// finishes unrun, as a queue finishes a cancelled operation (cancelled, then started), unless
  /// it was dropped: that one is left as it is.
  private func released() {
    guard let foreign else { return }  // Finished: its entry went then.
    let finishesUnrun = ForeignAdapters.update(foreign, by: self) { entry in
      if entry?.startCalled == true || entry?.isDropped == true { entry = nil }
      entry?.startCalled = true
      return entry != nil
    }
    guard finishesUnrun == true else { return }
    callForeign { [self] foreign in
      if !foreign.isFinished, !foreign.isExecuting {
        foreign.cancel()
        if foreign.isReady, !foreign.isFinished, !foreign.isExecuting { foreign.start() }
        if foreign.isFinished { foreign.detachFromUnfinishedDependencies() }
      }
      ForeignAdapters.update(foreign, by: self) { $0 = nil }
    }
  }

  /// Calls `body` with the unfinished foreign operation on a serial queue of its own, never on
  /// the pool tasks share: a foreign `cancel()` or `start()` may block or call back.
  func callForeign(_ body: @escaping @Sendable (Operation) -> Void) {
    guard let foreign else { return }
    DispatchQueue(label: "OperationBridge.ForeignAdapter.call").async { body(foreign) }
  }

  /// Waits with `waiter` for `operation`, run elsewhere, on an adapter that is not the
  /// instance's: it never starts or cancels `operation`.
  package static func waitUntilFinished(
    _ operation: Operation, waiter: OperationWaiter?, built: Any.Type? = nil
  ) -> OperationQueueManager.Admission<any Sendable, any Error> {
    let adapter = ForeignAdapter(for: operation, key: nil, built: built, priority: nil)
    adapter.whenFinished(operation)
    return .init(operation: adapter, waiterID: waiter.flatMap { adapter.addWaiter($0) })
  }
}
