import AsyncBridge
import OperationCore
import Testing

/// Holds a continuation until the first of several racers takes it.
private final class FirstComer<Value: Sendable>: Sendable {
  private let continuation = Locked<CheckedContinuation<Value, Never>?>(nil)

  func arm(_ continuation: CheckedContinuation<Value, Never>) {
    self.continuation.withLock { $0 = continuation }
  }

  func resume(returning value: Value) {
    continuation.withLock { $0.take() }?.resume(returning: value)
  }
}

/// Runs `body` in a new task and waits for it at most `timeout`. Returns nil when the time ran
/// out: the body keeps running, but the test goes on and reports the hang instead of waiting.
func completing<Value: Sendable>(
  within timeout: Duration = .seconds(30), _ body: @escaping @Sendable () async -> Value
) async -> Value? {
  let first = FirstComer<Value?>()
  return await withCheckedContinuation { continuation in
    first.arm(continuation)
    let timer = Task {
      try? await Task.sleep(for: timeout)
      first.resume(returning: nil)
    }
    Task {
      let value = await body()
      first.resume(returning: value)
      timer.cancel()
    }
  }
}

/// The result of `task`, or nil if it did not complete within `timeout`.
func result<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration = .seconds(30)
) async -> Result<Success, any Error>? {
  await completing(within: timeout) { await task.result }
}

/// The value of a non-throwing `task`, or nil if it did not complete within `timeout`.
func value<Success: Sendable>(
  of task: Task<Success, Never>, within timeout: Duration = .seconds(30)
) async -> Success? {
  await completing(within: timeout) { await task.value }
}

/// Expects `task` to return `expected` within `timeout`.
func expectValue<Success: Sendable & Equatable>(
  _ expected: Success, from task: Task<Success, any Error>,
  within timeout: Duration = .seconds(30),
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  switch await result(of: task, within: timeout) {
  case nil:
    Issue.record("task did not complete within \(timeout)", sourceLocation: sourceLocation)
  case .success(let value)?:
    #expect(value == expected, sourceLocation: sourceLocation)
  case .failure(let error)?:
    Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
  }
}

/// Expects `task` to complete without throwing within `timeout`.
func expectSuccess<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration = .seconds(30),
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  switch await result(of: task, within: timeout) {
  case nil:
    Issue.record("task did not complete within \(timeout)", sourceLocation: sourceLocation)
  case .success?:
    break
  case .failure(let error)?:
    Issue.record("expected success, got \(error)", sourceLocation: sourceLocation)
  }
}

/// Expects `task` to throw `CancellationError` within `timeout`.
func expectCancellation<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration = .seconds(30),
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  switch await result(of: task, within: timeout) {
  case nil:
    Issue.record("task did not complete within \(timeout)", sourceLocation: sourceLocation)
  case .success(let value)?:
    Issue.record("expected CancellationError, got \(value)", sourceLocation: sourceLocation)
  case .failure(let error)?:
    #expect(error is CancellationError, "got \(error)", sourceLocation: sourceLocation)
  }
}

/// Waits (without blocking a thread) until `manager` is idle; false if that took longer than
/// `timeout`.
func becomesIdle(
  _ manager: OperationQueueManager, within timeout: Duration = .seconds(30)
) async -> Bool {
  await completing(within: timeout) { (try? await manager.waitUntilIdle()) != nil } ?? false
}

/// Polls `condition` until it holds or `timeout` expires. Only for conditions that have no
/// event to wait on (memory being reclaimed, say).
func eventually(
  within timeout: Duration = .seconds(30), _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return condition()
}
