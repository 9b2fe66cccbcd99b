import Foundation
import Synchronization

// The operation's queue priority, which follows its callers: decided under its lock, set outside
// it, newest change last.
extension ConcurrentOperation {
  /// Sets the queue priority of an operation just claimed, before its queue sees it and
  /// outside every lock (the setter sends key-value notifications on Apple platforms). A
  /// joiner may have raised the work meanwhile (``apply(_:)``): then the newest stamp is
  /// written instead, and a stamp made while this writes is written after it, as `apply`
  /// does. An unchanged priority with no stamp costs one load.
  final func setInitialPriority(_ priority: Operation.QueuePriority) {
    if newestPriorityChange.load(ordering: .acquiring) == 0 {
      if queuePriority != priority { queuePriority = priority }
      if newestPriorityChange.load(ordering: .acquiring) == 0 { return }
    }
    setPriorityAgain()
  }

  /// Raises the operation's queue priority to at least `priority`, for as long as it is open:
  /// a request that never leaves asks for it.
  package final func raisePriority(to priority: Operation.QueuePriority) {
    let change = state.withLock { state in
      state.keep(PriorityLevel(priority))
      return state.reprioritize()
    }
    apply(change)
  }

  /// The caller of waiter `id` was escalated (a task awaiting it has a higher priority now): the
  /// work is raised to `priority` if that is higher than every other caller's.
  @usableFromInline
  package final func escalateWaiter(_ id: OperationWaiter.ID, to priority: Operation.QueuePriority)
  {
    let change = state.withLock { state in
      state.escalateWaiter(id, to: PriorityLevel(priority)) ? state.reprioritize() : nil
    }
    apply(change)
  }

  /// Sets the queue priority a change decided, outside the operation's lock, unless a change
  /// decided later got here first; then tells the work (``priorityDidChange(to:whileExecuting:)``).
  ///
  /// Changes decided in one order under the operation's lock may get here in another. The
  /// newest stamps ``newestPriorityChange``; an older one gives up. No lock is held while
  /// Foundation's setter runs (on Apple platforms it sends key-value notifications, whose
  /// observers may change priorities themselves): after each write the stamp is read again, and
  /// a change stamped meanwhile is written in turn, so the last write is always the newest's.
  final func apply(_ change: OperationStateMachine.PriorityChange?) {
    guard let change else { return }
    let stamp =
      UInt64(change.version) << 8 | UInt64(UInt8(bitPattern: Int8(change.priority.rawValue)))
    var newest = newestPriorityChange.load(ordering: .acquiring)
    while newest >> 8 < UInt64(change.version) {
      let (exchanged, found) = newestPriorityChange.compareExchange(
        expected: newest, desired: stamp, ordering: .acquiringAndReleasing)
      newest = exchanged ? stamp : found
    }
    guard newest == stamp else { return }
    while true {
      let priority = Self.priority(ofStamp: newest)
      if queuePriority != priority { queuePriority = priority }
      let now = newestPriorityChange.load(ordering: .acquiring)
      if now == newest { break }
      newest = now
    }
    priorityDidChange(to: change.priority, whileExecuting: change.whileExecuting)
  }

  /// Sets the queue priority the operation has once more (after its quality of service
  /// changed). A change that ``apply(_:)`` writes meanwhile is never overwritten by the older
  /// priority read here: after the write, the newest stamp is read again, and a change stamped
  /// since is written in turn, as `apply` does.
  final func setPriorityAgain() {
    var newest = newestPriorityChange.load(ordering: .acquiring)
    while true {
      queuePriority = newest == 0 ? queuePriority : Self.priority(ofStamp: newest)
      let now = newestPriorityChange.load(ordering: .acquiring)
      if now == newest { return }
      newest = now
    }
  }

  /// The queue priority a stamp of ``newestPriorityChange`` carries, in its low byte.
  private static func priority(ofStamp stamp: UInt64) -> Operation.QueuePriority {
    Operation.QueuePriority(rawValue: Int(Int8(bitPattern: UInt8(truncatingIfNeeded: stamp))))
      ?? .normal
  }
}
