import AsyncBridge
import OperationCore
import TestSupport
import Testing

/// Starts a task that performs `operation` on `manager`, and returns it once the manager has
/// reported the operation enqueued: pending, while the queue is suspended or full.
func taskPerformingEnqueued<Value: Sendable, Failure: Error>(
  _ operation: ConcurrentOperation<Value, Failure>, on manager: OperationQueueManager,
  sourceLocation: SourceLocation = #_sourceLocation
) async -> Task<Value, any Error> {
  let log = EventLog(manager)
  let task = Task { try await manager.perform(operation) }
  #expect(await log.wait(for: .enqueued, of: operation), sourceLocation: sourceLocation)
  return task
}
