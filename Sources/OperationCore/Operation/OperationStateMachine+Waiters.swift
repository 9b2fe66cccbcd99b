import Foundation

// Who waits for open work: the callers, the policy for when they have all left, and the
// queue priority they ask for.

extension OperationStateMachine {
  /// Who waits for an outcome not fixed yet.
  struct Waiters {
    var list = WaiterList()
    var nextID: OperationWaiter.ID = 0
    /// What happens once no caller waits: the policy that keeps the work longest among those
    /// its callers asked for (``AbandonmentPolicy/keepingLonger(than:)``). An interest that
    /// never leaves (a completion handler, a plain enqueue) makes it `finish`: from then on,
    /// waiters leaving never cancel the work.
    var whenAbandoned = AbandonmentPolicy.cancel

    /// Whether the last caller leaving cancels the work in the same step.
    var cancelsWhenAbandoned: Bool {
      switch whenAbandoned {
      case .cancel: true
      case .finish: false
      case .linger(let duration): duration <= .zero
      }
    }

    /// Whether the work is abandoned now as it was when the linger `token` began: no caller
    /// waits, and none came since (each one takes a new identity) nor an interest that keeps
    /// the work to its end.
    func isStillAbandoned(since token: OperationWaiter.ID) -> Bool {
      guard list.isEmpty, nextID == token else { return false }
      if case .finish = whenAbandoned { return false }
      return true
    }

    /// The highest priority asked by requests that never leave and have no waiter (a plain
    /// enqueue): it counts as long as the work is open.
    var kept = PriorityLevel.none
    /// The priority last asked of the queue for this work (at the claim, or by a
    /// ``PriorityChange``): its effective priority then.
    var priority = PriorityLevel.none
    /// How many priority changes were decided: the operation applies a change only if no
    /// later one was applied before it, so changes applied outside the lock never regress.
    /// (Small: a lifecycle no larger moves as cheaply.)
    var priorityVersion: UInt32 = 0

    /// The work's effective priority: the highest among the callers still waiting and the
    /// requests that never leave.
    var effectivePriority: PriorityLevel { max(list.highestPriority, kept) }
  }

  /// A new effective priority for the work, decided under the lock and applied outside it
  /// (setting `queuePriority` calls into Foundation, and KVO observers on Darwin).
  struct PriorityChange {
    let priority: Operation.QueuePriority
    /// Orders the changes of one operation: a higher version was decided later.
    let version: UInt32
    /// Whether the work was executing when the change was decided.
    let whileExecuting: Bool
  }

  /// The work lingers with no caller waiting: `token` (the identity the next caller would
  /// get) tells whether nobody came by the time `duration` has passed.
  struct Linger {
    let duration: Duration
    let token: OperationWaiter.ID
  }
}
