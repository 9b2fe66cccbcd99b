import Foundation
import Testing

/// Facts about Foundation's `Operation` that the core relies on and that no behaviour test
/// shows directly (docs/PLATFORM-NOTES.md lists each with the code that depends on it). When
/// one of these fails, the toolchain's Foundation has changed and that code needs a new look.
@Suite struct PlatformFactsTests {
  /// An operation whose `isReady` and `isFinished` getters count the calls made while a flag
  /// is set, so a test sees which of Foundation's calls read them on the calling thread.
  private final class ReadCountingOperation: Operation, @unchecked Sendable {
    private let lock = NSLock()
    private var counting = false
    private var readyReads = 0
    private var finishedReads = 0

    /// Runs `body`, counting the getter calls made on this thread meanwhile.
    func countingReads(_ body: () -> Void) -> (ready: Int, finished: Int) {
      lock.withLock { counting = true }
      body()
      return lock.withLock {
        counting = false
        return (readyReads, finishedReads)
      }
    }

    override var isReady: Bool {
      lock.withLock { if counting { readyReads += 1 } }
      return super.isReady
    }

    override var isFinished: Bool {
      lock.withLock { if counting { finishedReads += 1 } }
      return super.isFinished
    }
  }

  /// A cancelled operation is ready whatever its dependencies: cancel-all ends operations
  /// whose dependencies never finish, and a foreign operation that is not ready is cancelled
  /// so that it can be started and finish without running.
  @Test func aCancelledOperationIsReadyWithUnfinishedDependencies() {
    let dependency = BlockOperation {}
    let operation = BlockOperation {}
    operation.addDependency(dependency)
    #expect(!operation.isReady)
    operation.cancel()
    #expect(operation.isReady)
  }

  /// Starting a cancelled operation finishes it without calling `main()`: this is how a
  /// queue ends a cancelled operation, and how a foreign operation is ended without running.
  @Test func startingACancelledOperationFinishesItWithoutRunningIt() {
    let ran = NSLock()
    nonisolated(unsafe) var didRun = false
    let operation = BlockOperation { ran.withLock { didRun = true } }
    operation.cancel()
    operation.start()
    #expect(operation.isFinished)
    #expect(ran.withLock { !didRun })
  }

  #if !canImport(Darwin)
    /// swift-corelibs-foundation has no KVO: `didChangeValue(forKey:)` re-reads the
    /// overridden getter at once, on the calling thread. So an operation must send it outside
    /// its own lock (ConcurrentOperation does).
    @Test func didChangeValueReadsTheGetterOnTheCallingThread() {
      let operation = ReadCountingOperation()
      let reads = operation.countingReads { operation.didChangeValue(forKey: "isFinished") }
      #expect(reads.finished >= 1)
    }

    /// `cancel()` reads the operation's own `isFinished` and `isReady` on the cancelling
    /// thread: calling `super.cancel()` while holding the lock those getters take deadlocks
    /// (or traps, with a lock that refuses recursion).
    @Test func cancelReadsTheGettersOnTheCancellingThread() {
      let operation = ReadCountingOperation()
      let reads = operation.countingReads { operation.cancel() }
      #expect(reads.finished >= 1)
      #expect(reads.ready >= 1)
    }

    /// Removing a dependency that has not finished leaves the dependent counting it: the
    /// dependent stays not ready. So ChainedOperation keeps an upstream that joined other work
    /// as its dependency and lets that upstream finish, instead of removing it.
    @Test func removingAnUnfinishedDependencyLeavesTheDependentNotReady() {
      let dependency = BlockOperation {}
      let operation = BlockOperation {}
      operation.addDependency(dependency)
      operation.removeDependency(dependency)
      #expect(operation.dependencies.isEmpty)
      #expect(!operation.isReady)
    }

    /// Starting an operation that is not ready, outside a queue, traps: a foreign operation
    /// that is still not ready when its turn comes is never started, and its callers get
    /// `ForeignOperationError.notReady` instead.
    @Test func startingAnOperationThatIsNotReadyTraps() async {
      await #expect(processExitsWith: .failure) {
        let dependency = BlockOperation {}
        let operation = BlockOperation {}
        operation.addDependency(dependency)
        operation.start()
        exit(0)
      }
    }
  #endif
}
