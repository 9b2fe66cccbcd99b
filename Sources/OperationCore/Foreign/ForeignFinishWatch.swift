import Foundation
import LockedValue

/// Calls a closure once, as soon as an operation of anyone's has finished, whoever runs it and
/// whatever its `completionBlock` does: the watch never reads or sets that block.
///
/// The watch is an operation that depends on the watched one; Foundation itself tells a
/// dependent when its dependency finishes, for any operation that reports `isFinished` the way
/// queues need it to.
/// - On swift-corelibs-foundation there is no KVO to observe, but finishing an operation
///   re-reads the `isReady` of each dependent whose last dependency it was, synchronously, on
///   the finishing thread (Operation.swift, `observeValue`: the `toFinished` case decrements the
///   dependents' counts and re-reads them through the `toReady` case; `addDependency` does the
///   same when the dependency had already finished). The watch fires from its `isReady`
///   override there, without a queue: no allocation or thread hop beyond the watch itself.
/// - On Darwin the watch sits in a private queue that is never suspended, and fires when that
///   queue runs it, which it does once the dependency has finished (KVO tells it so).
///
/// Until it fires the watch keeps itself alive: corelibs' dependency keeps only an unretained
/// pointer to its dependents, so a watch released early would crash the finishing thread. One
/// that watches an operation which never finishes therefore stays, like that operation.
final class ForeignFinishWatch: Operation, @unchecked Sendable {
  // State lives in `stage`, guarded by its lock.
  private enum Stage {
    case unarmed
    /// Waiting for the dependency; holds the watch itself alive until it fires.
    case armed(body: @Sendable () -> Void, keepsAlive: ForeignFinishWatch)
    case fired
  }

  private let stage = Locked(Stage.unarmed)

  #if canImport(Darwin)
    private static let queue: OperationQueue = {
      let queue = OperationQueue()
      queue.name = "OperationBridge.ForeignFinishWatch"
      return queue
    }()
  #endif

  /// Calls `body` once `operation` has finished: at once (on this thread) if it already has,
  /// otherwise on the thread that finishes it (corelibs) or on a private queue (Darwin).
  static func watch(_ operation: Operation, then body: @escaping @Sendable () -> Void) {
    let watch = ForeignFinishWatch()
    watch.stage.withLock { $0 = .armed(body: body, keepsAlive: watch) }
    watch.addDependency(operation)
    #if canImport(Darwin)
      queue.addOperation(watch)
    #endif
  }

  #if !canImport(Darwin)
    /// corelibs re-reads this when the watched operation has finished: the moment to fire.
    /// (Not on Darwin, whose queue may read readiness under its own locks.)
    override var isReady: Bool {
      let ready = super.isReady
      if ready { fire() }
      return ready
    }
  #endif

  override func main() {
    fire()
  }

  private func fire() {
    let armed = stage.withLock {
      stage -> (body: @Sendable () -> Void, keepsAlive: ForeignFinishWatch)? in
      guard case .armed(let body, let keepsAlive) = stage else { return nil }
      stage = .fired
      return (body, keepsAlive)
    }
    // The self-reference is dropped here, outside the lock, after the body ran.
    armed?.body()
  }
}
