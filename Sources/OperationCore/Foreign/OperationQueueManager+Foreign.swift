import Foundation

extension OperationQueueManager {
  /// Runs `operation` (any `Operation`) on this manager's queue, or joins the same work in flight,
  /// and calls `completion` once it has finished: success, or `CancellationError` if it was
  /// cancelled. Its adapter goes into the queue and starts it, so queue control and dependencies
  /// apply; its `completionBlock` is left alone. Hand over an operation nobody else enqueued or
  /// started, and enqueue it nowhere else afterwards: Foundation stops the process when an
  /// operation waiting in a queue is started (docs/MIGRATING.md). docs/CANCELLATION.md says what
  /// cancellation does to foreign work.
  ///
  /// - Parameters:
  ///   - operation: The work. One that has already finished is not run again.
  ///   - coalescingKey: Joins pending or executing work of the same class and key, and
  ///     `operation` is dropped (never started). Without a key, only the same instance joins.
  ///   - priority: The queue priority; nil keeps the operation's own.
  ///   - callbackQueue: Where to call `completion`; nil calls it on the thread that settles the
  ///     work (the calling thread, before this returns, for an operation that had finished).
  ///   - completion: Called exactly once.
  /// - Returns: The operation doing the work: `operation`, or the one in flight it joined (make
  ///   dependents depend on this one: a dropped `operation` is left as it is, never finished).
  @discardableResult
  @_disfavoredOverload
  public func enqueue(
    _ operation: some Operation, coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil, callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) -> Operation {
    let admission = admitForeign(
      operation, as: Void.self, key: coalescingKey,
      waiter: handlerWaiter(callbackQueue, completion), priority: priority)
    return (admission.operation as? ForeignAdapter)?.operationDoingTheWork ?? operation
  }

  /// As `enqueue(_:coalescingKey:priority:callbackQueue:completion:)`, calling `completion` with
  /// the operation's ``ResultProducingOperation/outcome``.
  @discardableResult
  @_disfavoredOverload
  public func enqueue<Foreign: ResultProducingOperation>(
    _ operation: Foreign, coalescingKey: (any Hashable & Sendable)? = nil,
    priority: Operation.QueuePriority? = nil, callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Foreign.Output, any Error>) -> Void
  ) -> Operation {
    let admission = admitForeign(
      operation, as: Foreign.Output.self, key: coalescingKey,
      waiter: handlerWaiter(callbackQueue, completion), priority: priority)
    return (admission.operation as? ForeignAdapter)?.operationDoingTheWork ?? operation
  }

  /// Builds a foreign operation around `complete`, a completion handler of the manager's, runs it
  /// as `enqueue(_:coalescingKey:priority:callbackQueue:completion:)` does, and calls
  /// `completion` once with what that handler receives first.
  ///
  /// ```swift
  /// manager.enqueue(coalescingKey: "user/7", { complete in
  ///   UserFetchOperation(completionHandler: complete)
  /// }) { result in … }
  /// ```
  ///
  /// - Parameters:
  ///   - coalescingKey: Joins work in flight built under an equal key for the same `Value`;
  ///     `makeOperation` then never runs. Nil: work of its own.
  ///   - priority: The queue priority; nil keeps the one the operation sets itself.
  ///   - callbackQueue: Where to call `completion`, as for the plain `enqueue`.
  ///   - makeOperation: Builds the operation around `complete`; called at most once, before
  ///     this returns.
  ///   - completion: Called exactly once.
  public func enqueue<Value: Sendable>(
    coalescingKey: (any Hashable & Sendable)? = nil, priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    _ makeOperation: (_ complete: @escaping @Sendable (Result<Value, any Error>) -> Void) ->
      Operation,
    completion: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) {
    admitBuilt(
      key: coalescingKey, waiter: handlerWaiter(callbackQueue, completion), priority: priority,
      makeOperation)
  }

  /// Builds a foreign operation that produces its own outcome, runs it as
  /// `enqueue(_:coalescingKey:priority:callbackQueue:completion:)` does, and calls `completion`
  /// once with its ``ResultProducingOperation/outcome``.
  ///
  /// ```swift
  /// manager.enqueue(coalescingKey: url, { UnfurlURLOperation(shortURL: url) }) { result in … }
  /// ```
  ///
  /// Joining comes first: while work of the class `makeOperation` returns is in flight under an
  /// equal key (built here, or handed over with that `coalescingKey`), the call joins it and
  /// builds nothing, so no instance is made only to be dropped.
  ///
  /// - Parameters:
  ///   - coalescingKey: Joins work in flight of class `Foreign` under an equal key;
  ///     `makeOperation` then never runs. Nil: work of its own.
  ///   - priority: The queue priority; nil keeps the one the operation sets itself.
  ///   - callbackQueue: Where to call `completion`, as for the plain `enqueue`.
  ///   - makeOperation: Builds the operation; called at most once, before this returns.
  ///   - completion: Called exactly once.
  public func enqueue<Foreign: ResultProducingOperation>(
    coalescingKey: (any Hashable & Sendable)? = nil, priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil, _ makeOperation: () -> Foreign,
    completion: @escaping @Sendable (Result<Foreign.Output, any Error>) -> Void
  ) {
    admitBuilt(
      key: coalescingKey, waiter: handlerWaiter(callbackQueue, completion), priority: priority,
      makeOperation)
  }

  /// A waiter that calls `completion` (counted while it waits on `callbackQueue`); it never leaves.
  private func handlerWaiter<Output: Sendable>(
    _ callbackQueue: CallbackQueue?,
    _ completion: @escaping @Sendable (Result<Output, any Error>) -> Void
  ) -> OperationWaiter {
    let completion = counted(completion, on: callbackQueue)
    return OperationWaiter(interest: .untilSettled, callbackQueue: callbackQueue) { outcome in
      completion(Result { try outcome.foreignValue(as: Output.self) })
    }
  }

  /// Admits a request for work `makeOperation` builds around a ``BridgeHandler``, after joining
  /// work in flight under `key` first, so that a joiner builds nothing.
  @discardableResult
  package func admitBuilt<Value: Sendable>(
    key: (any Hashable & Sendable)?, waiter: OperationWaiter?, priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy = .cancel,
    _ makeOperation: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> Operation
  ) -> Admission<any Sendable, any Error> {
    if let key,
      let joined = join(
        CoalescingKey(
          for: ForeignAdapter.self,
          base: CoalescingKey(
            operationType: BridgeHandler<Value>.self, valueType: Void.self, base: key)),
        as: ForeignAdapter.self, waiter: waiter, priority: priority, whenAbandoned: policy)
    {
      return joined
    }
    let handler = BridgeHandler<Value>()
    let operation = makeOperation(handler.complete)
    let own = operation.queuePriority
    let admission = admitForeign(
      operation, as: Value.self, built: true, key: key, waiter: waiter,
      priority: priority.map { own.rawValue > $0.rawValue ? own : $0 }, whenAbandoned: policy)
    handler.attach(to: admission.operation)
    return admission
  }

  /// Admits a request for work `makeOperation` builds, read through its
  /// ``ResultProducingOperation/outcome``, after joining work of class `Foreign` in flight under
  /// `key` first, so that a joiner builds nothing.
  @discardableResult
  package func admitBuilt<Foreign: ResultProducingOperation>(
    key: (any Hashable & Sendable)?, waiter: OperationWaiter?, priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy = .cancel, _ makeOperation: () -> Foreign
  ) -> Admission<any Sendable, any Error> {
    if let key,
      let joined = join(
        CoalescingKey(
          for: ForeignAdapter.self,
          base: CoalescingKey(operationType: Foreign.self, valueType: Void.self, base: key)),
        as: ForeignAdapter.self, waiter: waiter, priority: priority, whenAbandoned: policy)
    {
      return joined
    }
    let operation = makeOperation()
    let own = operation.queuePriority
    return admitForeign(
      operation, as: Foreign.Output.self, scope: Foreign.self, key: key, waiter: waiter,
      priority: priority.map { own.rawValue > $0.rawValue ? own : $0 }, whenAbandoned: policy)
  }

  /// Admits a request for foreign work read as `Value` (`Void`: any value, unless `built`): it
  /// joins the instance's adapter, or installs one, joins it and admits it (which may join work
  /// under `key`). Joining through the adapter's lock, where the last caller leaving and the
  /// cancellation are one step, a request never takes a cancellation caused by another's leaving.
  /// A finished operation, or one adapted for another value type, is waited for instead.
  /// `scope` is the class the key is scoped to (nil: the operation's own).
  package func admitForeign<Value: Sendable>(
    _ operation: Operation, as valueType: Value.Type, built: Bool = false,
    scope: AnyClass? = nil, key: (any Hashable & Sendable)?, waiter: OperationWaiter?,
    priority: Operation.QueuePriority?, whenAbandoned policy: AbandonmentPolicy = .cancel
  ) -> Admission<any Sendable, any Error> {
    // The caller's key scoped to the operation's class (built work: its handler's, so its
    // value type), so that equal keys of two classes never share work.
    let scope: AnyClass = built ? BridgeHandler<Value>.self : scope ?? type(of: operation)
    let key = key.map { CoalescingKey(operationType: scope, valueType: Void.self, base: $0) }
    let builtValue: Any.Type? = built ? Value.self : nil
    while !operation.isFinished {
      // At the request's priority before anyone can join it: joiners may only raise it.
      let (adapter, installed) = ForeignAdapters.adapter(of: operation) {
        ForeignAdapter(for: operation, key: key, built: builtValue, priority: priority)
      }
      guard adapter.valueType == Value.self || (Value.self == Void.self && !built) else { break }
      var escalationCanMatter = true
      let (join, wakes, change) = adapter.join(
        waiter, follower: nil, priority: PriorityLevel(priority), whenAbandoned: policy,
        escalationCanMatter: &escalationCanMatter)
      wakes.run()
      guard case .registered(let id, _, _) = join else {  // Closed: the next turn replaces it.
        ForeignAdapters.update(operation, by: adapter) { $0?.isJoinable = false }
        continue
      }
      adapter.apply(change)
      if installed { admitInstalled(adapter, for: operation, priority: priority) }
      return Admission(operation: adapter, waiterID: id)
    }
    return ForeignAdapter.waitUntilFinished(operation, waiter: waiter, built: builtValue)
  }

  /// Admits the adapter a request installed with a hold, a caller that wants nothing and keeps it
  /// open until the claim is done. Dropped for work under its key, the adapter follows that work,
  /// and the hold stays that work's caller until the adapter settles, so that the work is never
  /// cancelled under the adapter's callers.
  private func admitInstalled(
    _ adapter: ForeignAdapter, for operation: Operation, priority: Operation.QueuePriority?
  ) {
    let hold = OperationWaiter(interest: .untilLeaving, callbackQueue: nil) { _ in }
    let admission = admit(adapter, waiter: hold, priority: nil)
    guard let holdID = admission.waiterID else { return }  // Settled before the claim.
    let work = admission.operation
    guard work !== adapter else {
      work.removeWaiter(holdID, resumingWith: .cancelled)
      return
    }
    // Dropped: the instance is left as it is, never started and never cancelled (its
    // `cancel()` may trap, or have effects no caller asked for). Like any dropped request, it
    // leaves its dependencies (see `admit`).
    ForeignAdapters.update(operation, by: adapter) { entry in
      entry?.isJoinable = false
      entry?.isDropped = true
    }
    // What the work's dependents should depend on: its foreign operation, or, once that has
    // finished, its adapter, which finishes with it.
    adapter.joined((work as? ForeignAdapter).map { $0.foreign ?? $0 })
    for dependency in operation.dependencies { operation.removeDependency(dependency) }
    if let priority { work.raisePriority(to: priority) }
    adapter.addWaiter(
      OperationWaiter(interest: .onlyNotified, callbackQueue: nil) { _ in
        work.removeWaiter(holdID, resumingWith: .cancelled)
      })
  }
}
