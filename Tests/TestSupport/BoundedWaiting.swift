import AsyncBridge
import LockedValue
import OperationBridgeTesting
import OperationCore
import Testing

extension Duration {
  /// How long every bounded wait of the tests waits unless told otherwise: long enough for a
  /// loaded two-core machine under ThreadSanitizer, short enough that a hang fails the run
  /// instead of stalling it. Every bounded wait here counts time as a `WaitBudget` does: a
  /// stretch in which the waiting code did not get to run is charged only briefly.
  public static let testTimeout = Duration.seconds(30)
}

/// Polls `condition` with the kit's `poll` until it holds or `timeout` passes; returns whether
/// it held (false too when the calling task is cancelled). Only for facts with no event to wait
/// on, such as memory being reclaimed or a server noticing a closed connection.
public func eventually(
  within timeout: Duration = .testTimeout, _ condition: () -> Bool
) async -> Bool {
  (try? await poll(until: "the condition", within: timeout, condition)) != nil
}

/// Runs `body` in a new task and waits for it at most `timeout`. Returns nil when the time ran
/// out: the body keeps running, but the test goes on and reports the hang instead of waiting.
public func completing<Value: Sendable>(
  within timeout: Duration = .testTimeout, _ body: @escaping @Sendable () async -> Value
) async -> Value? {
  let first = FirstComer<Value?>()
  return await withCheckedContinuation { continuation in
    first.arm(continuation)
    let timer = Task {
      try? await sleep(spending: timeout)
      first.resume(returning: nil)
    }
    Task {
      let value = await body()
      first.resume(returning: value)
      timer.cancel()
    }
  }
}

/// Runs `body` in a new task and returns what it returns, or throws the kit's `WaitExpired` when
/// it did not complete within `timeout` (the body keeps running; the test goes on).
///
/// The body runs in a task of its own: cancelling the caller does not cancel it. Await
/// directly where a test cancels the awaiting task itself.
public func withDeadline<Value: Sendable>(
  _ timeout: Duration = .testTimeout, _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
  let outcome = await completing(within: timeout) { () async -> Result<Value, any Error> in
    do {
      return .success(try await body())
    } catch {
      return .failure(error)
    }
  }
  guard let outcome else { throw WaitExpired(condition: "the work completing", bound: timeout) }
  return try outcome.get()
}

/// Waits (without blocking a thread) until `manager` is idle; false if that took longer than
/// `timeout`.
public func becomesIdle(
  _ manager: OperationQueueManager, within timeout: Duration = .testTimeout
) async -> Bool {
  await completing(within: timeout) { (try? await manager.waitUntilIdle()) != nil } ?? false
}

/// The result of `task`, or nil if it did not complete within `timeout`.
public func result<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration = .testTimeout
) async -> Result<Success, any Error>? {
  await completing(within: timeout) { await task.result }
}

/// The value of a non-throwing `task`, or nil if it did not complete within `timeout`.
public func value<Success: Sendable>(
  of task: Task<Success, Never>, within timeout: Duration = .testTimeout
) async -> Success? {
  await completing(within: timeout) { await task.value }
}

/// Enqueues `operation` on `manager` with a completion handler and returns what the handler
/// receives; nil if it received nothing within `timeout`.
public func enqueuedResult<Value: Sendable, Failure>(
  of operation: ConcurrentOperation<Value, Failure>, on manager: OperationQueueManager,
  within timeout: Duration = .testTimeout
) async -> Result<Value, any Error>? {
  await completing(within: timeout) {
    await withCheckedContinuation { continuation in
      manager.enqueue(operation) { (result: Result<Value, any Error>) in
        continuation.resume(returning: result)
      }
    }
  }
}

/// Expects `task` to return `expected` within `timeout`.
public func expectValue<Success: Sendable & Equatable>(
  _ expected: Success, from task: Task<Success, any Error>,
  within timeout: Duration = .testTimeout,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  guard let outcome = await outcome(of: task, within: timeout, sourceLocation) else { return }
  switch outcome {
  case .success(let value):
    #expect(value == expected, sourceLocation: sourceLocation)
  case .failure(let error):
    Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
  }
}

/// Expects `task` to complete without throwing within `timeout`.
public func expectSuccess<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration = .testTimeout,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  if case .failure(let error)? = await outcome(of: task, within: timeout, sourceLocation) {
    Issue.record("expected success, got \(error)", sourceLocation: sourceLocation)
  }
}

/// Expects `task` to throw `CancellationError` within `timeout`.
public func expectCancellation<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration = .testTimeout,
  sourceLocation: SourceLocation = #_sourceLocation
) async {
  switch await outcome(of: task, within: timeout, sourceLocation) {
  case nil:
    break
  case .success(let value)?:
    Issue.record("expected CancellationError, got \(value)", sourceLocation: sourceLocation)
  case .failure(let error)?:
    #expect(error is CancellationError, "got \(error)", sourceLocation: sourceLocation)
  }
}

/// The value `task` returned within `timeout`; nil, with an issue recorded, when it threw or
/// did not complete in time.
public func value<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration = .testTimeout,
  sourceLocation: SourceLocation = #_sourceLocation
) async -> Success? {
  guard let outcome = await outcome(of: task, within: timeout, sourceLocation) else { return nil }
  return success(of: outcome, sourceLocation: sourceLocation)
}

/// The error `task` threw within `timeout`; nil, with an issue recorded, when it returned or did
/// not complete in time.
public func error<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration = .testTimeout,
  sourceLocation: SourceLocation = #_sourceLocation
) async -> (any Error)? {
  guard let outcome = await outcome(of: task, within: timeout, sourceLocation) else { return nil }
  return failure(of: outcome, sourceLocation: sourceLocation)
}

/// The value of a successful `result`; nil, with an issue recorded, for a failure or for no
/// result (a bounded wait that ran out).
public func success<Success>(
  of result: Result<Success, any Error>?, sourceLocation: SourceLocation = #_sourceLocation
) -> Success? {
  switch result {
  case nil:
    Issue.record("no result within the time limit", sourceLocation: sourceLocation)
  case .success(let value)?:
    return value
  case .failure(let error)?:
    Issue.record("expected a value, got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}

/// The error of a failed `result`; nil, with an issue recorded, for a success or for no result
/// (a bounded wait that ran out).
public func failure<Success>(
  of result: Result<Success, any Error>?, sourceLocation: SourceLocation = #_sourceLocation
) -> (any Error)? {
  switch result {
  case nil:
    Issue.record("no result within the time limit", sourceLocation: sourceLocation)
  case .success(let value)?:
    Issue.record("expected an error, got \(value)", sourceLocation: sourceLocation)
  case .failure(let error)?:
    return error
  }
  return nil
}

extension Result where Failure == any Error {
  /// Captures the outcome of an async throwing call.
  public init(catching body: () async throws -> Success) async {
    do {
      self = .success(try await body())
    } catch {
      self = .failure(error)
    }
  }
}

/// The result of `task`; nil, with an issue recorded, if it did not complete within `timeout`.
private func outcome<Success: Sendable>(
  of task: Task<Success, any Error>, within timeout: Duration,
  _ sourceLocation: SourceLocation
) async -> Result<Success, any Error>? {
  let outcome = await result(of: task, within: timeout)
  if outcome == nil {
    Issue.record("task did not complete within \(timeout)", sourceLocation: sourceLocation)
  }
  return outcome
}

/// Starts a task that iterates `events` to its end and returns how many it saw.
public func counting(_ events: OperationEventStream) -> Task<Int, Never> {
  Task {
    var seen = 0
    for await _ in events { seen += 1 }
    return seen
  }
}

extension Duration {
  /// The duration in seconds, for Dispatch deadlines.
  public var seconds: Double {
    let parts = components
    return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
  }
}

/// Resumes a continuation with the first value offered; later ones are dropped.
private final class FirstComer<Value: Sendable>: Sendable {
  private let continuation = Locked<CheckedContinuation<Value, Never>?>(nil)

  func arm(_ continuation: CheckedContinuation<Value, Never>) {
    self.continuation.withLock { $0 = continuation }
  }

  func resume(returning value: Value) {
    continuation.withLock { $0.take() }?.resume(returning: value)
  }
}
