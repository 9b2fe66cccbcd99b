/// One caller waiting for an operation's outcome: an entry in the operation's flat waiter list.
///
/// Not generic: it receives the type-erased outcome, so storing, moving and resuming waiters
/// needs no generic metadata. Its layout is fixed at compile time (a closure, an optional queue
/// and its interest), so copies are plain retains: storing a `CheckedContinuation` itself, a
/// type from a resilient library, would route every copy through runtime value witnesses.
@usableFromInline
package struct OperationWaiter: Sendable {
  /// Identifies the waiter so it can leave before the operation settles.
  @usableFromInline
  package typealias ID = UInt64

  /// How long a waiter wants the outcome.
  @usableFromInline
  package enum Interest: Sendable {
    /// Until the outcome arrives: a completion handler. While one is waiting, waiters leaving
    /// never cancel the operation.
    case untilSettled
    /// Until the outcome arrives or the caller leaves (an awaiting task that is cancelled or
    /// reaches its deadline). When the last such waiter leaves and no `untilSettled` one ever
    /// came, the operation is cancelled.
    case untilLeaving
    /// Until the outcome arrives, without wanting it: a waiter only told that the work settled
    /// (a dropped adapter's, which then lets go of its hold on the work it joined). It is no
    /// caller: it neither keeps the work from being cancelled nor counts among its callers.
    case onlyNotified
  }

  /// How long this waiter wants the outcome.
  package let interest: Interest
  /// The priority its caller asks for, once it is in a ``WaiterList`` (``PriorityLevel/none``
  /// for one only notified). Next to `interest`, so it fits in the padding before the queue.
  var priority = PriorityLevel.none
  private let callbackQueue: CallbackQueue?
  private let deliver: @Sendable (ErasedOutcome) -> Void

  /// Creates a waiter that receives the outcome on `callbackQueue`, or on the settling thread.
  @usableFromInline
  package init(
    interest: Interest, callbackQueue: CallbackQueue?,
    deliver: @escaping @Sendable (ErasedOutcome) -> Void
  ) {
    self.interest = interest
    self.callbackQueue = callbackQueue
    self.deliver = deliver
  }

  /// This waiter, closing `observer` before it hands over the outcome: the caller's progress
  /// calls all come before its outcome, never after (see ``ProgressObserver``).
  package func closing(_ observer: ProgressObserver) -> OperationWaiter {
    OperationWaiter(interest: interest, callbackQueue: callbackQueue) { [deliver] outcome in
      observer.close { deliver(outcome) }
    }
  }

  /// Whether the waiter is a caller, one that wants the outcome.
  var isCaller: Bool {
    switch interest {
    case .untilSettled, .untilLeaving: true
    case .onlyNotified: false
    }
  }

  /// Hands `outcome` to the waiter. Call it outside any lock.
  package func resume(with outcome: ErasedOutcome) {
    if let callbackQueue {
      callbackQueue.execute { [deliver] in deliver(outcome) }
    } else {
      deliver(outcome)
    }
  }
}
