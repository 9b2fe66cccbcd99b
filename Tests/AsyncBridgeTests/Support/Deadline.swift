import AsyncBridge
import OperationCore
import TestSupport
import Testing

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
