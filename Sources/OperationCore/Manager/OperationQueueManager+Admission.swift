import Foundation

// Admitting a request takes one of three paths, named by what happens to the operation:
// - join: an identical operation is in flight; the request waits for it instead.
// - claim: the request's operation is new to every manager; this one claims it, indexes it
//   under its key and adds it to the queue.
// - await: the operation was claimed before (here or by another manager) or already started;
//   the request waits for it without adding it anywhere.

extension OperationQueueManager {
  /// Where an admitted request waits: the operation doing the work and the waiter's place.
  @usableFromInline
  package struct Admission<Value: Sendable, Failure: Error> {
    /// The operation that does the work: the one passed in, or the in-flight one it joined.
    @usableFromInline
    package let operation: ConcurrentOperation<Value, Failure>
    /// The waiter's identity on `operation`, to leave early; nil when no waiter was given or
    /// the outcome was delivered at once.
    @usableFromInline
    package let waiterID: OperationWaiter.ID?
    /// False when an escalation of the waiter's caller can change nothing for the work,
    /// whatever its queue: the caller asks for the most an escalation can, or the work has
    /// started and passes no priority on to what it runs.
    @usableFromInline
    package let escalationCanMatter: Bool

    init(
      operation: ConcurrentOperation<Value, Failure>, waiterID: OperationWaiter.ID?,
      escalationCanMatter: Bool = true
    ) {
      self.operation = operation
      self.waiterID = waiterID
      self.escalationCanMatter = escalationCanMatter
    }
  }

  /// Enqueues `operation`, or joins an identical one in flight, and calls `completion` once
  /// with the result (`CancellationError` when cancelled, ``OperationTimeoutError`` on timeout).
  ///
  /// - Parameters:
  ///   - operation: The work. If an operation with the same ``CoalescingKey`` is pending or
  ///     executing, this one is dropped and `completion` waits for that one instead. The
  ///     dropped one never runs and always follows that one: it takes that one's outcome and
  ///     is released with it (reports `isFinished`), whoever holds it, on every platform.
  ///   - priority: The queue priority; joining raises a pending operation's priority to it.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the settling thread.
  ///   - completion: Called exactly once.
  /// - Returns: The operation that does the work; cancelling it cancels every waiter.
  @discardableResult
  @inlinable
  @_disfavoredOverload
  public func enqueue<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> ConcurrentOperation<Value, Failure> {
    let waiter = operation.makeWaiter(
      callbackQueue: callbackQueue, untypedResult: counted(completion, on: callbackQueue))
    return admit(operation, waiter: waiter, priority: priority).operation
  }

  /// Enqueues `operation`, or joins an identical one in flight, and calls `completion` once
  /// with the typed result (cancellation and timeout through ``OperationFailure``).
  ///
  /// For an operation with a typed failure, an unannotated closure (`{ result in … }`) gets
  /// this typed overload; annotate the closure's parameter as `Result<Value, any Error>` for
  /// the untyped one.
  ///
  /// - Parameters:
  ///   - operation: The work; see
  ///     ``enqueue(_:priority:callbackQueue:completion:)-(_,_,_,(Result<Value,Error>)->Void)``.
  ///   - priority: The queue priority; joining raises a pending operation's priority to it.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the settling thread.
  ///   - completion: Called exactly once.
  /// - Returns: The operation that does the work; cancelling it cancels every waiter.
  @discardableResult
  @inlinable
  public func enqueue<Value, Failure: OperationFailure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Value, Failure>) -> Void
  ) -> ConcurrentOperation<Value, Failure> {
    let waiter = operation.makeWaiter(
      callbackQueue: callbackQueue, typedResult: counted(completion, on: callbackQueue))
    return admit(operation, waiter: waiter, priority: priority).operation
  }

  /// Enqueues `operation`, or joins an identical one in flight, without waiting for it. A
  /// dropped `operation` follows the one in flight, as with
  /// ``enqueue(_:priority:callbackQueue:completion:)-(_,_,_,(Result<Value,Error>)->Void)``.
  ///
  /// - Returns: The operation that does the work; add completions to it or cancel it.
  @discardableResult
  public func enqueue<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil
  ) -> ConcurrentOperation<Value, Failure> {
    admit(operation, waiter: nil, priority: priority).operation
  }

  /// Joins the open operation of `type` indexed under `key` with `waiter`; nil when nothing
  /// joinable is in flight. Lets a caller skip building an operation that would be dropped.
  /// `policy` is the waiter's for when every caller has left.
  @usableFromInline
  package func join<Value, Failure>(
    _ key: CoalescingKey,
    as type: ConcurrentOperation<Value, Failure>.Type,
    waiter: OperationWaiter?,
    priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy = .cancel
  ) -> Admission<Value, Failure>? {
    var wakes = EventWakes()
    var change: OperationStateMachine.PriorityChange?
    let joined = state.withLock { state in
      Self.join(
        key, as: type, in: state, excluding: nil, waiter: waiter,
        priority: PriorityLevel(priority), whenAbandoned: policy, wakes: &wakes,
        change: &change)
    }
    wakes.run()
    guard let joined else { return nil }
    joined.operation.apply(change)
    return joined
  }

  /// Admits a request: joins an identical operation in flight, claims `operation` for the
  /// queue, or awaits it when it was claimed before; registers `waiter` (nil: an interest that
  /// never leaves) atomically with that decision.
  ///
  /// A waiter whose interest is `untilLeaving` (an awaiting task) may later leave through
  /// `ConcurrentOperation.removeWaiter`; when the last such waiter leaves and nobody else
  /// wants the value, the operation is cancelled, unless a caller's `policy` (this waiter's
  /// here) asked to keep it (``AbandonmentPolicy``).
  ///
  /// An `operation` that joins work in flight is dropped and always follows that work (see
  /// ``ConcurrentOperation/join(_:follower:priority:whenAbandoned:)``): it is released with the work's outcome, whoever
  /// holds it. Nothing here asks whether anybody does.
  @usableFromInline
  package func admit<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    waiter: OperationWaiter?,
    priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy = .cancel
  ) -> Admission<Value, Failure> {
    let generation = cancelAllGeneration.load(ordering: .sequentiallyConsistent)
    guard let key = operation.coalescingKey else {
      // Nothing to join or index: the operation's own lock makes the claim atomic.
      let claim = claim(
        operation, waiter: waiter, priority: priority, whenAbandoned: policy,
        audience: events.audience)
      return addToQueue(
        operation, claim, waiter: waiter, priority: priority, whenAbandoned: policy,
        generation: generation)
    }
    // One step under the manager's lock: join work in flight, or claim this operation,
    // register the waiter and index it, so two identical requests never both start fresh work.
    var claim = OperationStateMachine.Action.refused
    var wakes = EventWakes()
    var change: OperationStateMachine.PriorityChange?
    // Read before the manager's lock is taken: the hub's lock nests under no other.
    let audience = events.audience
    let joined = state.withLock { state -> Admission<Value, Failure>? in
      // The operation's own class, read from the instance: naming
      // `ConcurrentOperation<Value, Failure>.self` in this unspecialised code looked up the
      // generic class's metadata on every admission.
      if let joined = Self.join(
        key, as: type(of: operation), in: state, excluding: operation,
        waiter: waiter, priority: PriorityLevel(priority), whenAbandoned: policy,
        wakes: &wakes, change: &change)
      {
        return joined
      }
      claim = self.claim(
        operation, waiter: waiter, priority: priority, whenAbandoned: policy,
        audience: audience)
      // Settled work (cancelled before it was enqueued) is never indexed: nothing would
      // remove it.
      if case .registered = claim { state.inFlight[key] = operation }
      return nil
    }
    wakes.run()
    guard let joined else {
      return addToQueue(
        operation, claim, waiter: waiter, priority: priority, whenAbandoned: policy,
        generation: generation)
    }
    // The dropped request never runs. On swift-corelibs-foundation each of its dependencies
    // keeps an unretained pointer to it and dereferences it on finishing, which crashes once
    // the caller releases it (a coalesced `ChainedOperation`, say): detach it.
    for dependency in operation.dependencies { operation.removeDependency(dependency) }
    joined.operation.apply(change)
    return joined
  }

  /// After the claim, outside the manager's lock: adds a claimed operation to the queue and
  /// announces it, or waits for one claimed before.
  private func addToQueue<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    _ claim: OperationStateMachine.Action,
    waiter: OperationWaiter?,
    priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy,
    generation: UInt64
  ) -> Admission<Value, Failure> {
    switch claim {
    case .registered(let id, let announces, _):
      // Outside the manager's lock, before the queue sees the operation (see
      // `setInitialPriority`).
      if let priority { operation.setInitialPriority(priority) }
      // Claimed pending: only a caller asking for the most an escalation can ask is sure
      // to change nothing.
      let escalationCanMatter = PriorityLevel(priority) < .high
      operation.willEnqueue(on: self)
      queue.addOperation(operation)
      // Published only now that it is true; events decided meanwhile follow it.
      if announces { operation.announceEnqueued() }
      if cancelAllGeneration.load(ordering: .sequentiallyConsistent) != generation {
        // A cancel-all began since the claim and may have swept the queue before the
        // operation was in it. Cancelled from another thread: `enqueue` never calls a new
        // operation's handlers itself.
        DispatchQueue.global().async { operation.cancel() }
      }
      return Admission(
        operation: operation, waiterID: id, escalationCanMatter: escalationCanMatter)
    case .resumeAtOnce(let outcome, let announces):
      if let priority { operation.setInitialPriority(priority) }
      waiter?.resume(with: outcome)
      // Into the queue all the same: it is released, without running, when the queue starts
      // it, so dependents and waits on it go on.
      queue.addOperation(operation)
      if announces { operation.announceEnqueued() }
      return Admission(operation: operation, waiterID: nil)
    case .none, .publish, .announce, .refused, .run, .deliver, .left, .release:
      // Enqueued before (here or elsewhere) or already run: wait for it rather than trap.
      let id = waiter.flatMap {
        operation.addWaiter($0, priority: PriorityLevel(priority), whenAbandoned: policy)
      }
      return Admission(operation: operation, waiterID: id)
    }
  }

  /// Claims `operation` for this manager's queue with its first waiter, and counts it as
  /// outstanding unless it was claimed before. `audience`: the subscribers who see its events.
  /// A request without a `priority` asks for the operation's own.
  private func claim<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    waiter: OperationWaiter?,
    priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy,
    audience: EventAudience?
  ) -> OperationStateMachine.Action {
    let claim = operation.claim(
      by: self, waiter: waiter, priority: PriorityLevel(priority ?? operation.queuePriority),
      whenAbandoned: policy, audience: audience)
    switch claim {
    case .none, .publish, .announce, .refused, .run, .deliver, .left, .release:
      return claim
    case .registered, .resumeAtOnce:
      // Counted before the queue sees it: its finish decrements.
      outstanding.add(1, ordering: .sequentiallyConsistent)
      return claim
    }
  }

  /// Under the manager's lock: adds `waiter` to the open operation indexed under `key`, unless
  /// it is `operation` itself. The `joined` event's wakes go to `wakes`, and the work's new
  /// priority, if the request raised it, to `change`: both are carried out once the manager's
  /// lock is unlocked.
  ///
  /// No dynamic cast: an operation is indexed under its own key, and a key names the exact
  /// class of the operations that build it (``ConcurrentOperation/init(coalescingKey:)`` uses
  /// `Self`), so an operation found under a key built for a `type` subclass is of that class.
  /// (A checked cast here would look up the generic class's metadata on every join.)
  private static func join<Value, Failure>(
    _ key: CoalescingKey,
    as type: ConcurrentOperation<Value, Failure>.Type,
    in state: State,
    excluding operation: ConcurrentOperation<Value, Failure>?,
    waiter: OperationWaiter?,
    priority: PriorityLevel,
    whenAbandoned policy: AbandonmentPolicy,
    wakes: inout EventWakes,
    change: inout OperationStateMachine.PriorityChange?
  ) -> Admission<Value, Failure>? {
    guard let found = state.inFlight[key] else { return nil }
    let current = unsafeDowncast(found, to: type)
    guard current !== operation else { return nil }
    // The request's own operation, dropped, follows the work it joined (one a manager claimed
    // before ignores the outcome: its own queue releases it).
    var escalationCanMatter = true
    let (join, joinWakes, joinChange) = current.join(
      waiter, follower: operation, priority: priority, whenAbandoned: policy,
      escalationCanMatter: &escalationCanMatter)
    guard case .registered(let id, _, _) = join else { return nil }
    wakes = joinWakes
    change = joinChange
    return Admission(
      operation: current, waiterID: id, escalationCanMatter: escalationCanMatter)
  }
}
