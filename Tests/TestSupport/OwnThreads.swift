import Foundation
import LockedValue

/// Runs `body(lane)` for lanes `0..<count`, each on a thread of its own, and returns once every
/// lane has returned.
///
/// Work that blocks (a `read`, a semaphore, a stress lane that waits for each round) belongs on
/// threads of its own: on corelibs, `OperationQueue` runs operations on dispatch's global pool,
/// which grows by about one thread a second while its threads are blocked, so blocking work
/// submitted there delays every operation in the test process (docs/PLATFORM-NOTES.md).
public func onOwnThreads(_ count: Int, _ body: @escaping @Sendable (_ lane: Int) -> Void) async {
  guard count > 0 else { return }  // No lane would resume the wait.
  let lanesLeft = Locked(count)
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    for lane in 0..<count {
      Thread.detachNewThread {
        body(lane)
        let last = lanesLeft.withLock { left -> Bool in
          left -= 1
          return left == 0
        }
        if last { done.resume() }
      }
    }
  }
}

/// The value `body` returns, computed on a thread of its own (see ``onOwnThreads(_:_:)``).
public func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
  await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
    Thread.detachNewThread { continuation.resume(returning: body()) }
  }
}
