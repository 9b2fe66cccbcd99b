import Foundation

// What an input of the state machine asks the operation to do once its lock is unlocked.

extension OperationStateMachine {
  /// A fixed outcome.
  struct Settlement {
    let outcome: ErasedOutcome
    /// Whether the operation was cancelled (or timed out) before it was released, whatever
    /// the outcome.
    var cancelled: Bool

    init(_ outcome: ErasedOutcome) {
      self.outcome = outcome
      cancelled = outcome.isCancellation
    }
  }

  /// What happens after delivering an outcome.
  enum AfterDelivery {
    /// Nothing: the operation keeps its slot until the subclass calls `finish`.
    case nothing
    /// Release the operation.
    case release
    /// End the delivery (``deliveryEnded()``): the queue may have started the operation
    /// meanwhile, and it is then released.
    case endDelivery
  }

  /// An outcome to hand to waiters, outside the lock.
  struct Delivery {
    let waiters: WaiterList
    let outcome: ErasedOutcome
    /// Whether started work must be told to stop (cancellation or timeout).
    let stopsWork: Bool
    let then: AfterDelivery
  }

  /// What an input asks the operation to do: the events to publish under the lock, and the
  /// side effects to perform once it is unlocked.
  enum Action {
    /// Nothing.
    case none
    /// Publish `event` (a `stalled` one).
    case publish(DecidedEvent)
    /// The operation is in its queue: publish `enqueued`, then the events decided since the
    /// claim, in order.
    case announce(enqueued: DecidedEvent, later: [DecidedEvent])
    /// The waiter is registered (nil `waiterID` for a nil waiter, an interest that never
    /// leaves); publish `event` (`joined`). From a claim: `announces` when the operation
    /// publishes its lifecycle, and the manager then calls ``enqueued()`` once it is queued.
    case registered(waiterID: OperationWaiter.ID?, announces: Bool, event: DecidedEvent?)
    /// Not registered: the operation was claimed before or started (a claim), or it is
    /// cancelled or settled (a join: such work is never joined).
    case refused
    /// Settled already: hand `outcome` to the new waiter at once. From a claim, the queue
    /// still gets the operation, to start and release it without running it.
    case resumeAtOnce(ErasedOutcome, announces: Bool)
    /// Publish `event` (`started`), then arm the timeout, if any, and call `main()`.
    case run(timeout: Duration?, event: DecidedEvent?)
    /// Publish `event` (the terminal one), then hand an outcome to waiters, then as the
    /// delivery's `then` says. The event is apart from the delivery, so publishing it under
    /// the lock reads no more of the action.
    case deliver(Delivery, event: DecidedEvent?)
    /// The waiter left: resume it; `cancellation` when nobody is left who wants the value,
    /// decided in the same step so that no request joins work about to be cancelled, with its
    /// terminal `event` to publish. With `linger`, nobody is left but the work is kept for a
    /// while (``AbandonmentPolicy/linger(_:)``): arm a timer for
    /// ``lingerEnded(_:releaseIfExecuting:)``.
    /// Boxed: the largest payload, on a path taken only when a caller leaves.
    indirect case left(
      OperationWaiter, cancellation: Delivery?, event: DecidedEvent?, linger: Linger?)
    /// Release the operation (its outcome was delivered before).
    case release
  }
}
