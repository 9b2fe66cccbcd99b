import Foundation

extension OperationQueueManager {
  /// Enqueues `operation`, or joins an identical one in flight, and calls `completion` once on
  /// the main actor with the result.
  ///
  /// The overload main-actor code gets for `callbackQueue: .dispatch(.main)`: `completion` is
  /// `@MainActor`, so it may touch main-actor state as written
  /// (`{ result in self.show(result) }`). Otherwise as
  /// ``enqueue(_:priority:callbackQueue:completion:)-(_,_,_,(Result<Value,Error>)->Void)``.
  /// A typed-failure operation gets the typed `@Sendable` overload for an unannotated closure;
  /// annotate the closure's parameter as `Result<Value, any Error>` for this one.
  ///
  /// - Parameters:
  ///   - operation: The work, coalesced by its key.
  ///   - priority: The queue priority; joining raises a pending operation's priority to it.
  ///   - callbackQueue: `.dispatch(.main)`.
  ///   - completion: Called exactly once, on the main actor.
  /// - Returns: The operation that does the work; cancelling it cancels every waiter.
  @discardableResult
  public func enqueue<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: MainActorCallbackQueue,
    completion: @escaping @MainActor (Result<Value, any Error>) -> Void
  ) -> ConcurrentOperation<Value, Failure> {
    let completion = callbackQueue.calling(completion)
    return enqueue(
      operation, priority: priority, callbackQueue: callbackQueue.callbackQueue,
      completion: completion)
  }

  /// Enqueues `operation`, or joins an identical one in flight, calls `onProgress` on the main
  /// actor with the progress of the work as it goes, and calls `completion` once on the main
  /// actor with the result.
  ///
  /// The overload main-actor code gets for `callbackQueue: .dispatch(.main)`: both closures are
  /// `@MainActor`. Otherwise as
  /// ``enqueue(_:priority:callbackQueue:onProgress:completion:)-(_,_,_,_,(Result<Value,Error>)->Void)``.
  ///
  /// - Parameters:
  ///   - operation: The work, coalesced by its key.
  ///   - priority: The queue priority; joining raises a pending operation's priority to it.
  ///   - callbackQueue: `.dispatch(.main)`.
  ///   - onProgress: Called with the work's shared progress, on the main actor.
  ///   - completion: Called exactly once, on the main actor, after the last call of
  ///     `onProgress` has returned.
  /// - Returns: The operation that does the work; cancelling it cancels every waiter.
  @discardableResult
  public func enqueue<Value, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    callbackQueue: MainActorCallbackQueue,
    onProgress: @escaping @MainActor (OperationProgress) -> Void,
    completion: @escaping @MainActor (Result<Value, any Error>) -> Void
  ) -> ConcurrentOperation<Value, Failure> {
    let onProgress = callbackQueue.calling(onProgress)
    let completion = callbackQueue.calling(completion)
    return enqueue(
      operation, priority: priority, callbackQueue: callbackQueue.callbackQueue,
      onProgress: onProgress, completion: completion)
  }
}
