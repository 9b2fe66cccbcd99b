import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// The typed-throws overloads: failures, cancellation and timeouts arrive as the operation's
/// own `OperationFailure` type, checked by the compiler.
@Suite struct TypedThrowsTests {
  /// Performs `operation` in a new task and returns its typed outcome.
  private func typedFailure(
    of operation: TestOperation<TestFailure>, on manager: OperationQueueManager
  ) -> Task<Result<Int, TestFailure>, Never> {
    Task { await Self.performTyped(operation, on: manager) }
  }

  @Test func typedValueArrives() async throws {
    let manager = OperationQueueManager(name: "typed.value")
    let operation = TestOperation<TestFailure>(key: 1)
    let task = typedFailure(of: operation, on: manager)
    #expect(await operation.started.wait())
    operation.release(4)
    #expect(await value(of: task) == .success(4))
  }

  @Test func typedFailureIsCaughtAsItsOwnType() async throws {
    let manager = OperationQueueManager(name: "typed.failure")
    let operation = TestOperation<TestFailure>(key: 1)
    let task = typedFailure(of: operation, on: manager)
    #expect(await operation.started.wait())
    operation.fail(.broken(3))
    #expect(await value(of: task) == .failure(.broken(3)))
  }

  @Test func lateCancellationArrivesAsTypedCancellation() async throws {
    let manager = OperationQueueManager(name: "typed.lateCancel")
    let operation = TestOperation<TestFailure>(key: 1)
    let task = typedFailure(of: operation, on: manager)
    #expect(await operation.started.wait())
    task.cancel()
    #expect(await value(of: task, within: .seconds(30)) == .failure(.cancelled))
    #expect(operation.isCancelled)
    #expect(await becomesIdle(manager))
  }

  @Test func earlyCancellationArrivesAsTypedCancellationWithoutEnqueueing() async throws {
    let manager = OperationQueueManager(name: "typed.earlyCancel")
    let log = EventLog(manager)
    let operation = TestOperation<TestFailure>(key: 1)
    let cancelled = Gate()
    let task = Task { () async -> Result<Int, TestFailure> in
      await cancelled.wait()
      return await Self.performTyped(operation, on: manager)
    }
    task.cancel()
    cancelled.open()
    #expect(await value(of: task, within: .seconds(30)) == .failure(.cancelled))
    #expect(manager.outstandingOperationCount == 0)
    #expect(operation.mainCalls.value == 0)
    #expect(!operation.isCancelled)
    #expect(await log.flush(manager))
    #expect(log.kinds(of: operation).isEmpty)
  }

  @Test func cancellingTheOperationArrivesAsTypedCancellation() async throws {
    let manager = OperationQueueManager(name: "typed.opCancel")
    manager.isSuspended = true
    let log = EventLog(manager)
    let operation = TestOperation<TestFailure>(key: 1)
    let task = typedFailure(of: operation, on: manager)
    #expect(await log.wait(for: .enqueued, of: operation))
    operation.cancel()
    #expect(await value(of: task, within: .seconds(30)) == .failure(.cancelled))
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
  }

  @Test func timeoutArrivesAsTypedTimeout() async throws {
    let manager = OperationQueueManager(name: "typed.timeout")
    let operation = TestOperation<TestFailure>(key: 1)
    operation.timeout = .milliseconds(50)
    let task = typedFailure(of: operation, on: manager)
    #expect(await value(of: task) == .failure(.timedOut(.milliseconds(50))))
    // The timer thread tells the work to stop after resuming the waiters.
    #expect(await operation.cancelHookCalls.wait(untilAtLeast: 1))
    #expect(await becomesIdle(manager))
    #expect(operation.cancelHookCalls.value == 1)
  }

  @Test func typedValueOfAnEnqueuedOperation() async throws {
    let manager = OperationQueueManager(name: "typed.opValue")
    let operation = TestOperation<TestFailure>(key: 1)
    manager.enqueue(operation)
    let task = Task { await Self.typedValue(of: operation) }
    #expect(await operation.started.wait())
    operation.fail(.broken(9))
    #expect(await value(of: task) == .failure(.broken(9)))
  }

  /// Performs `operation` and returns its outcome. The `catch` binds `error` as `TestFailure`
  /// (not `any Error`), or this does not compile.
  private static func performTyped(
    _ operation: TestOperation<TestFailure>, on manager: OperationQueueManager
  ) async -> Result<Int, TestFailure> {
    do {
      return .success(try await manager.perform(operation))
    } catch {
      let failure: TestFailure = error
      return .failure(failure)
    }
  }

  /// Awaits `operation.value()` with typed failures; see `performTyped(_:on:)`.
  private static func typedValue(of operation: TestOperation<TestFailure>) async -> Result<
    Int, TestFailure
  > {
    do {
      return .success(try await operation.value())
    } catch {
      let failure: TestFailure = error
      return .failure(failure)
    }
  }
}
