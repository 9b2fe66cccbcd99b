import AsyncBridge
import OperationCore

/// Polls `condition` every millisecond until it holds or `timeout` passes; returns its last
/// value. Only for facts with no event to wait on, such as memory being reclaimed or a server
/// noticing a closed connection.
public func eventually(
  within timeout: Duration = .seconds(30), _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    if ContinuousClock.now >= deadline { return false }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}

/// Runs `body` in a new task and waits for it at most `timeout`. Returns nil when the time ran
/// out: the body keeps running, but the test goes on and reports the hang instead of waiting.
public func completing<Value: Sendable>(
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

/// Waits (without blocking a thread) until `manager` is idle; false if that took longer than
/// `timeout`.
public func becomesIdle(
  _ manager: OperationQueueManager, within timeout: Duration = .seconds(30)
) async -> Bool {
  await completing(within: timeout) { (try? await manager.waitUntilIdle()) != nil } ?? false
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
