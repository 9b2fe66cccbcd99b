import Foundation

extension OperationQueueManager {
  /// Enqueues `operation`, or joins an identical one in flight, calls `onProgress` with the
  /// progress of the work as it goes, and calls `completion` once with the result.
  ///
  /// Every coalesced caller shares one progress: a request that joins work under way is handed
  /// the current value at once, then every later one. Calls are serial, on `callbackQueue` (a
  /// global dispatch queue when nil), never on the thread that reports; a slow one gets the
  /// newest value rather than a backlog; values never go backwards; and none comes after
  /// `completion` was called.
  ///
  /// ```swift
  /// manager.enqueue(fetch, onProgress: { progress in … }) { result in … }
  /// ```
  ///
  /// - Parameters:
  ///   - operation: The work; coalesced and dropped as with
  ///     ``enqueue(_:priority:callbackQueue:completion:)-(_,_,_,(Result<Value,Error>)->Void)``.
  ///   - priority: The queue priority; joining raises a pending operation's priority to it.
  ///   - callbackQueue: Where to call `onProgress` and `completion`; nil calls `completion`
  ///     on the settling thread and `onProgress` on a global dispatch queue.
  ///   - onProgress: Called with the work's progress (see
  ///     ``ConcurrentOperation/reportProgress(completed:total:)``).
  ///   - completion: Called exactly once, after the last call of `onProgress` has returned.
  /// - Returns: The operation that does the work; cancelling it cancels every waiter.
  @discardableResult
  @inlinable
  @_disfavoredOverload
  public func enqueue<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    onProgress: @escaping @Sendable (OperationProgress) -> Void,
    completion: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> ConcurrentOperation<Value, Failure> {
    let waiter = operation.makeWaiter(
      callbackQueue: callbackQueue, untypedResult: counted(completion, on: callbackQueue))
    return admit(
      operation, waiter: waiter, priority: priority, callbackQueue: callbackQueue,
      onProgress: onProgress
    ).operation
  }

  /// Enqueues `operation`, or joins an identical one in flight, calls `onProgress` with the
  /// progress of the work as it goes, and calls `completion` once with the typed result (see the
  /// untyped
  /// ``enqueue(_:priority:callbackQueue:onProgress:completion:)-(_,_,_,_,(Result<Value,Error>)->Void)``).
  ///
  /// - Parameters:
  ///   - operation: The work, coalesced by its key.
  ///   - priority: The queue priority; joining raises a pending operation's priority to it.
  ///   - callbackQueue: Where to call `onProgress` and `completion`.
  ///   - onProgress: Called with the work's shared progress.
  ///   - completion: Called exactly once, after the last call of `onProgress` has returned.
  /// - Returns: The operation that does the work; cancelling it cancels every waiter.
  @discardableResult
  @inlinable
  public func enqueue<Value, Failure: OperationFailure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: CallbackQueue? = nil,
    onProgress: @escaping @Sendable (OperationProgress) -> Void,
    completion: @escaping @Sendable (Result<Value, Failure>) -> Void
  ) -> ConcurrentOperation<Value, Failure> {
    let waiter = operation.makeWaiter(
      callbackQueue: callbackQueue, typedResult: counted(completion, on: callbackQueue))
    return admit(
      operation, waiter: waiter, priority: priority, callbackQueue: callbackQueue,
      onProgress: onProgress
    ).operation
  }

  /// Admits a request whose caller observes progress: its waiter closes the caller's
  /// ``ProgressObserver`` before handing over the outcome, and the observer follows the
  /// progress of the operation that does the work (the one joined, for a request that joins),
  /// calling `onProgress` on `callbackQueue` (a global dispatch queue when nil). Apart from
  /// that, ``admit(_:waiter:priority:whenAbandoned:)``: a request that observes nothing never
  /// comes here.
  @usableFromInline
  package func admit<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    waiter: OperationWaiter,
    priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy = .cancel,
    callbackQueue: CallbackQueue?,
    onProgress: @escaping @Sendable (OperationProgress) -> Void
  ) -> Admission<Value, Failure> {
    admit(
      operation, waiter: waiter, priority: priority, whenAbandoned: policy,
      observer: ProgressObserver(callbackQueue: callbackQueue, handler: onProgress))
  }

  /// ``admit(_:waiter:priority:whenAbandoned:callbackQueue:onProgress:)`` with the caller's
  /// observer made already (one that calls its handler in the handler's isolation, say).
  package func admit<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    waiter: OperationWaiter,
    priority: Operation.QueuePriority?,
    whenAbandoned policy: AbandonmentPolicy = .cancel,
    observer: ProgressObserver
  ) -> Admission<Value, Failure> {
    let admission = admit(
      operation, waiter: waiter.closing(observer), priority: priority, whenAbandoned: policy)
    // No waiter identity: the caller had its outcome at once, and the observer is closed.
    if admission.waiterID != nil { admission.operation.observeProgress(observer) }
    return admission
  }
}
