import AsyncBridge
import Dispatch
import Foundation
import LockedValue
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// A legacy `cancel()` that blocks (a stand-in for a data task's `cancel()`, which may block on
/// Linux) delays no caller: each caller resumes before, and independently of, the `cancel()`
/// its leaving triggers, and those calls run on threads of their own, never on the pool that
/// tasks share.
@Suite struct BlockingCancelTests {
  /// More blocking cancels than the machine has cores.
  static let operationCount = max(6, ProcessInfo.processInfo.activeProcessorCount + 2)

  @Test func callersResumeWhileEveryLegacyCancelIsStillBlocked() async {
    let manager = OperationQueueManager()
    let gate = Gate()
    let entered = AsyncCounter()
    let service = ManualUserService()
    let resumed = Recorder<ContinuousClock.Instant>()
    let tasks = (0..<Self.operationCount).map { index in
      Task {
        defer { resumed.record(.now) }
        return try await manager.perform { complete in
          BlockingCancelOperation(
            userID: index, service: service, gate: gate, entered: entered,
            completionHandler: complete)
        }
      }
    }
    #expect(await eventually { service.requestCount == Self.operationCount })
    let cancelled = await Self.cancelEach(tasks)
    // Deterministic: every caller is back while no legacy `cancel()` has returned.
    #expect(!gate.isOpen)
    // Every `cancel()` runs at once, each on a thread of its own, though all of them block.
    #expect(await eventually { entered.value == Self.operationCount })
    // The pool that tasks and the global queues share is free meanwhile.
    #expect(
      await completing {
        await withCheckedContinuation { DispatchQueue.global().async(execute: $0.resume) }
      } != nil)
    print(
      "blocking legacy cancel: last caller back \(Self.latency(cancelled, resumed)) after the first cancel"
    )
    gate.open()
    #expect(await becomesIdle(manager))
  }

  /// Cancels each task from a task of its own (a cancellation handler runs on the cancelling
  /// thread) and expects each to end with `CancellationError`; returns when each cancel began.
  static func cancelEach<Success: Sendable>(
    _ tasks: [Task<Success, any Error>], sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Recorder<ContinuousClock.Instant> {
    let cancelled = Recorder<ContinuousClock.Instant>()
    let waits = tasks.map { task in
      Task {
        cancelled.record(.now)
        task.cancel()
        return await error(of: task) is CancellationError
      }
    }
    for wait in waits { #expect(await value(of: wait) == true, sourceLocation: sourceLocation) }
    return cancelled
  }

  /// From the first cancel to the last caller's resumption.
  static func latency(
    _ cancelled: Recorder<ContinuousClock.Instant>, _ resumed: Recorder<ContinuousClock.Instant>
  ) -> Duration {
    guard let first = cancelled.values.min(), let last = resumed.values.max() else { return .zero }
    return last - first
  }

  /// The same for an `operationWasCancelled()` override of a `ConcurrentOperation` of your own.
  @Test func callersResumeWhileEveryCancellationHookIsStillBlocked() async {
    let manager = OperationQueueManager()
    let gate = Gate()
    let entered = AsyncCounter()
    let operations = (0..<Self.operationCount).map { _ in
      BlockingHookOperation(gate: gate, entered: entered)
    }
    let resumed = Recorder<ContinuousClock.Instant>()
    let tasks = operations.map { operation in
      Task {
        defer { resumed.record(.now) }
        return try await manager.perform(operation)
      }
    }
    for operation in operations { #expect(await operation.started.wait()) }
    let cancelled = await Self.cancelEach(tasks)
    #expect(!gate.isOpen)
    #expect(await eventually { entered.value == Self.operationCount })
    print(
      "blocking cancellation hook: last caller back \(Self.latency(cancelled, resumed)) after the first cancel"
    )
    gate.open()
    #expect(await becomesIdle(manager))
  }

  /// A timeout's hook that blocks holds no timer of the manager's clock: the clock's timers
  /// fire on one thread, which the hook never gets.
  @Test func aTimeoutWhoseHookBlocksDelaysNoOtherTimer() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "blocking.timeout", clock: clock)
    let gate = Gate()
    let entered = AsyncCounter()
    let blocking = BlockingHookOperation(gate: gate, entered: entered)
    blocking.timeout = .seconds(1)
    let timedOut = Task { try await manager.perform(blocking) }
    #expect(await blocking.started.wait())
    let other = ManualOperation()
    let deadline = Task { try await manager.perform(other, timeout: .seconds(2)) }
    try await clock.waitUntilTimers(2)  // the timeout and the caller's deadline

    let advanced = await completing(within: .seconds(10)) {
      await clock.advance(by: .seconds(2))
      return true
    }
    #expect(advanced == true, "advancing the clock waited for the blocked hook")
    await #expect(throws: OperationTimeoutError.self) { try await timedOut.value }
    let error = await error(of: deadline)
    #expect((error as? OperationTimeoutError)?.scope == .caller)
    #expect(await entered.wait(untilAtLeast: 1))
    #expect(!gate.isOpen)
    gate.open()
    #expect(await becomesIdle(manager))
  }
}

/// A `ConcurrentOperation` whose `operationWasCancelled()` blocks until `gate` opens.
final class BlockingHookOperation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
  let started = Gate()
  private let gate: Gate
  private let entered: AsyncCounter

  init(gate: Gate, entered: AsyncCounter) {
    self.gate = gate
    self.entered = entered
    super.init()
  }

  override func main() { started.open() }

  override func operationWasCancelled() {
    entered.increment()
    _ = gate.block()
  }
}

/// A foreign operation whose `cancel()` blocks until `gate` opens.
final class BlockingCancelOperation: LegacyConcurrentOperation<LegacyUser>, @unchecked Sendable {
  let userID: Int
  private let service: ManualUserService
  private let gate: Gate
  private let entered: AsyncCounter

  init(
    userID: Int, service: ManualUserService, gate: Gate, entered: AsyncCounter,
    completionHandler: ((Result<LegacyUser, any Error>) -> Void)?
  ) {
    self.userID = userID
    self.service = service
    self.gate = gate
    self.entered = entered
    super.init(completionHandler: completionHandler)
  }

  override func main() {
    service.fetchUser(id: userID) { [weak self] result in self?.finish(result: result) }
  }

  override func cancel() {
    entered.increment()
    _ = gate.block()
    super.cancel()
  }
}
