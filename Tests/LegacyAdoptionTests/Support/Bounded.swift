import TestSupport
import Testing

/// The error `task` threw within `timeout`; records an issue when it returned or hung.
func error<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration = .seconds(30),
  sourceLocation: SourceLocation = #_sourceLocation
) async -> (any Error)? {
  switch await result(of: task, within: timeout) {
  case nil:
    Issue.record("task did not complete within \(timeout)", sourceLocation: sourceLocation)
    return nil
  case .success(let value)?:
    Issue.record("expected an error, got \(value)", sourceLocation: sourceLocation)
    return nil
  case .failure(let error)?:
    return error
  }
}

/// The value `task` returned within `timeout`; records an issue when it threw or hung.
func value<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration = .seconds(30),
  sourceLocation: SourceLocation = #_sourceLocation
) async -> Success? {
  switch await result(of: task, within: timeout) {
  case nil:
    Issue.record("task did not complete within \(timeout)", sourceLocation: sourceLocation)
    return nil
  case .success(let value)?:
    return value
  case .failure(let error)?:
    Issue.record("expected a value, got \(error)", sourceLocation: sourceLocation)
    return nil
  }
}
