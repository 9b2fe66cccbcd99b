import Foundation
import LockedValue
import TestSupport
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

  /// SE-0462's escalation handler runs on the thread that escalates the task, before
  /// `escalatePriority(to:)` returns, while the task waits inside the handler's scope: a waiting
  /// caller's escalation raises its work at once.
  @Test func anEscalationHandlerRunsOnTheEscalatingThreadBeforeEscalateReturns() async {
    guard #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) else {
      return
    }
    let escalations = Recorder<UInt8>()
    let parked = Locked<CheckedContinuation<Void, Never>?>(nil)
    let waiting = Gate()
    let task = Task(priority: .low) {
      await withTaskPriorityEscalationHandler {
        await withCheckedContinuation { continuation in
          parked.withLock { $0 = continuation }
          waiting.open()
        }
      } onPriorityEscalated: { _, new in
        escalations.record(new.rawValue)
      }
    }
    #expect(await waiting.wait())
    task.escalatePriority(to: .high)
    #expect(escalations.values == [TaskPriority.high.rawValue])
    parked.withLock { $0?.resume() }
    await task.value
  }

  /// An escalation before the handler is installed is not reported to it: the task's own
  /// priority shows it. So a caller checks its priority once the handler is installed, against
  /// the one it registered with.
  @Test func anEscalationBeforeTheHandlerIsInstalledIsNotReported() async {
    guard #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) else {
      return
    }
    let escalations = Recorder<UInt8>()
    let escalated = Gate()
    let task = Task(priority: .low) { () -> UInt8 in
      _ = await escalated.wait()
      return await withTaskPriorityEscalationHandler {
        Task.currentPriority.rawValue
      } onPriorityEscalated: { _, new in
        escalations.record(new.rawValue)
      }
    }
    task.escalatePriority(to: .high)
    escalated.open()
    #expect(await task.value == TaskPriority.high.rawValue)
    #expect(escalations.values.isEmpty)
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

    /// Changing the `queuePriority` of an operation pending in a queue moves it: the queue
    /// keeps one list per priority and starts from the highest, and the setter unlinks the
    /// operation from its old list and appends it to the new one. So shared work whose
    /// callers change is reordered on a width-1 queue, both ways.
    @Test func aChangedQueuePriorityReordersPendingOperations() async {
      let (first, second, third) = (BlockOperation {}, BlockOperation {}, BlockOperation {})
      let order = await startOrder(of: [first, second, third]) {
        third.queuePriority = .high
        first.queuePriority = .low
      }
      #expect(order == [third, second, first])
    }

    /// The moved operation goes behind those already at its new priority: raised work starts
    /// after older work of the priority it reached, lowered work after older work of the one
    /// it fell to.
    @Test func aChangedPriorityQueuesBehindOperationsAlreadyAtIt() async {
      let (first, second, third) = (BlockOperation {}, BlockOperation {}, BlockOperation {})
      first.queuePriority = .high
      third.queuePriority = .high
      let order = await startOrder(of: [first, second, third]) {
        first.queuePriority = .normal
        second.queuePriority = .high
      }
      #expect(order == [third, second, first])
    }

    /// On a width-1 queue, an operation with a quality of service and no priority of its own
    /// is queued as normal but looked for, when its priority changes, where its quality of
    /// service would put it: it is not found, so it does not move. Setting any priority
    /// before adding it puts it where the change looks (the manager does, for an operation
    /// with a quality of service).
    @Test func aChangeMissesAnOperationWithAQualityOfServiceAndNoPriority() async {
      let (first, second) = (BlockOperation {}, BlockOperation {})
      second.qualityOfService = .utility
      let order = await startOrder(of: [first, second]) { second.queuePriority = .high }
      #expect(order == [first, second])

      let (pinnedFirst, pinned) = (BlockOperation {}, BlockOperation {})
      pinned.qualityOfService = .utility
      pinned.queuePriority = .normal
      let pinnedOrder = await startOrder(of: [pinnedFirst, pinned]) { pinned.queuePriority = .high }
      #expect(pinnedOrder == [pinned, pinnedFirst])
    }

    /// Adds `operations` to a suspended width-1 queue, runs `change`, resumes the queue and
    /// returns the order in which it started them.
    private func startOrder(
      of operations: [BlockOperation], after change: () -> Void
    ) async -> [BlockOperation] {
      let started = Recorder<ObjectIdentifier>()
      for operation in operations {
        let id = ObjectIdentifier(operation)
        operation.addExecutionBlock { started.record(id) }
      }
      let queue = OperationQueue()
      queue.maxConcurrentOperationCount = 1
      queue.isSuspended = true
      for operation in operations { queue.addOperation(operation) }
      change()
      queue.isSuspended = false
      _ = await started.wait(forCount: operations.count)
      return started.values.compactMap { id in operations.first { ObjectIdentifier($0) == id } }
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
