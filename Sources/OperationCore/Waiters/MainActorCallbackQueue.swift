import Dispatch

/// The main queue as a callback queue whose callbacks are typed `@MainActor`:
/// `callbackQueue: .dispatch(.main)` picks the `enqueue` overloads that take one.
///
/// Main-actor code hands `enqueue` a completion handler that touches main-actor state
/// (`{ result in self.show(result) }`); the handler runs on the main queue, which is the main
/// actor's executor, so its type says `@MainActor` and the compiler accepts it as written. Any
/// other queue (a `CallbackQueue` value, `.dispatch(someQueue)`) picks the overloads whose
/// handlers are `@Sendable` and nonisolated.
public struct MainActorCallbackQueue: Sendable {
  /// The main dispatch queue: the only queue this type names.
  public enum MainQueue: Sendable {
    /// `DispatchQueue.main`, the main actor's executor.
    case main
  }

  /// Where the callbacks run, as a ``CallbackQueue``.
  package let callbackQueue: CallbackQueue

  private init(_ callbackQueue: CallbackQueue) {
    self.callbackQueue = callbackQueue
  }

  /// Calls the callbacks asynchronously on `DispatchQueue.main`, on the main actor.
  ///
  /// - Parameter queue: `.main`.
  /// - Returns: The main queue as a callback queue for `@MainActor` callbacks.
  public static func dispatch(_ queue: MainQueue) -> MainActorCallbackQueue {
    MainActorCallbackQueue(.dispatch(.main))
  }

  /// `handler` as a `@Sendable` function that runs it on the main actor, which it is on
  /// when called on this queue.
  package func calling<Argument: Sendable>(
    _ handler: @escaping @MainActor (Argument) -> Void
  ) -> @Sendable (Argument) -> Void {
    { argument in MainActor.assumeIsolated { handler(argument) } }
  }
}
