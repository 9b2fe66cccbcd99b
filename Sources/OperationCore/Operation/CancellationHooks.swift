import Dispatch
import LockedValue

/// Runs operations' cancellation hooks (``ConcurrentOperation/operationWasCancelled()``) off the
/// thread that decided the cancellation: a leaving caller's cancellation handler, which its task
/// waits out before it resumes, or a timer of a manager's clock.
///
/// Every hook runs on a serial queue of its own, at background quality of service, so one that
/// blocks delays no caller, no timer and no thread of the pool that tasks share, and its thread
/// (niced on Linux) does not take a core from them. The hooks handed over while no drain is
/// under way start one; it takes every hook handed over until it runs, starts each but the last
/// on a queue of its own and runs the last itself. So a burst of cancellations wakes one thread
/// on the deciding side, not one per hook, and a hook that blocks holds only its own queue.
enum CancellationHooks {
  /// The hooks handed over and not yet taken by a drain. Non-empty exactly while a drain is
  /// started and has not taken them: the hook that makes it non-empty starts that drain.
  private static let pending = Locked<[@Sendable () -> Void]>([])

  /// Runs `hook` on a queue of its own, soon; never on the calling thread.
  static func run(_ hook: @escaping @Sendable () -> Void) {
    let startsDrain = pending.withLock { hooks in
      hooks.append(hook)
      return hooks.count == 1
    }
    guard startsDrain else { return }
    ownQueue().async { drain() }
  }

  /// Takes every pending hook; starts each but the last on a queue of its own, then runs the
  /// last on this one.
  private static func drain() {
    let hooks = pending.withLock { hooks in
      var taken: [@Sendable () -> Void] = []
      swap(&taken, &hooks)
      return taken
    }
    for hook in hooks.dropLast() { ownQueue().async(execute: hook) }
    hooks.last?()
  }

  /// A serial queue for one drain or one hook.
  private static func ownQueue() -> DispatchQueue {
    DispatchQueue(label: "OperationBridge.operationWasCancelled", qos: .background)
  }
}
