import AsyncBridge
import Foundation
import OperationCore

extension OperationQueueManager {
  /// Waits, at most `bound` (see ``WaitExpired``), until at least `count` callers wait for the
  /// work in flight under `key`: the requests a test started have been admitted (each joined, or
  /// the first claimed the operation) before it goes on, say to advance a ``TestClock`` or to let
  /// a stubbed server answer.
  ///
  /// ```swift
  /// for _ in 0..<3 { Task { try await manager.perform(FetchAvatar(id: 7)) } }
  /// try await manager.waitUntilCallers(3, of: FetchAvatar.self, key: 7)
  /// ```
  ///
  /// Callers are awaiting tasks and completion handlers; a request enqueued without either
  /// never counts. Once the work settles nothing is in flight under the key, and the count is
  /// zero.
  ///
  /// - Parameters:
  ///   - count: How many callers must wait.
  ///   - key: The work's coalescing key.
  ///   - bound: The longest time to wait; 30 seconds by default.
  /// - Throws: ``WaitExpired`` when fewer callers waited by then; `CancellationError` when the
  ///   calling task is cancelled.
  public nonisolated(nonsending) func waitUntilCallers(
    _ count: Int, forKey key: CoalescingKey, within bound: Duration = .seconds(30)
  ) async throws {
    try await poll(
      until: "\(count) callers for \(key) on \(queue.name ?? "the manager")", within: bound
    ) {
      callerCount(forKey: key) >= count
    }
  }

  /// Waits, at most `bound`, until at least `count` callers wait for the work of `type` in
  /// flight under `key`, as ``waitUntilCallers(_:forKey:within:)`` does.
  ///
  /// - Parameters:
  ///   - count: How many callers must wait.
  ///   - type: The operation's class, as passed to its `init(coalescingKey:)`.
  ///   - key: The caller-supplied part of its key.
  ///   - bound: The longest time to wait; 30 seconds by default.
  /// - Throws: ``WaitExpired``, or `CancellationError`.
  public nonisolated(nonsending) func waitUntilCallers<
    Value, Failure, Work: ConcurrentOperation<Value, Failure>
  >(
    _ count: Int, of type: Work.Type, key: some Hashable & Sendable,
    within bound: Duration = .seconds(30)
  ) async throws {
    try await waitUntilCallers(count, forKey: CoalescingKey(for: type, base: key), within: bound)
  }

  /// Waits, at most `bound` (see ``WaitExpired``), until the manager is idle: every operation
  /// enqueued through it has finished and every completion handler given to it has returned.
  ///
  /// Woken by the manager when its last operation finishes (`waitUntilIdle()`), not by
  /// polling; the bound only turns a hang into a failure.
  ///
  /// - Parameter bound: The longest time to wait. (It has no default: without one,
  ///   `waitUntilIdle()` is `AsyncBridge`'s wait, which has no bound.)
  /// - Throws: ``WaitExpired`` when the manager was still busy by then; `CancellationError`
  ///   when the calling task is cancelled.
  public nonisolated(nonsending) func waitUntilIdle(within bound: Duration) async throws {
    let name = queue.name ?? "the manager"
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await self.waitUntilIdle() }
      group.addTask {
        try await sleep(spending: bound)
        throw WaitExpired(condition: "\(name) becoming idle", bound: bound)
      }
      defer { group.cancelAll() }
      try await group.next()
    }
  }
}
