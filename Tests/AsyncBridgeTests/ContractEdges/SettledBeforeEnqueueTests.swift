import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// An operation that settled (cancelled or finished) before it was enqueued: its waiter gets
/// the outcome, and the event stream shows exactly one terminal event for its `enqueued` (or
/// no `enqueued` at all), so nothing that tracks in-flight work from events keeps it forever
///.
@Suite struct SettledBeforeEnqueueTests {
  /// How the operation settled before it was enqueued.
  enum Settling: Sendable, CaseIterable {
    case cancelled
    case finished
  }

  /// How the caller waits.
  enum Waiting: Sendable, CaseIterable {
    case handler
    case perform
  }

  @Test(arguments: Settling.allCases, [nil, 1] as [Int?])
  func operationSettledBeforeEnqueueHasOneTerminalEventPerEnqueued(
    settling: Settling, key: Int?
  ) async throws {
    for waiting in Waiting.allCases {
      let manager = OperationQueueManager(name: "edges.settledEarly")
      let invariants = EventInvariants(manager)
      let operation = ManualOperation(key: key, ending: .whenReleased)
      invariants.track(operation)
      switch settling {
      case .cancelled: operation.cancel()
      case .finished: operation.release(7)
      }
      let received: Result<Int, any Error>?
      switch waiting {
      case .handler:
        let handler = Recorder<Result<Int, any Error>>()
        manager.enqueue(operation) { handler.record($0) }
        #expect(await handler.wait(forCount: 1, timeout: .seconds(30)), "\(waiting)")
        received = handler.values.first
      case .perform:
        received = await result(of: Task { try await manager.perform(operation) })
      }
      let expected: OperationEvent.Completion = settling == .cancelled ? .cancelled : .success
      #expect(received.map(EventInvariants.completion(of:)) == expected, "\(waiting)")
      if let received { invariants.received(received, from: operation) }
      await invariants.expectValid(
        manager, context: "\(settling), key \(String(describing: key)), \(waiting)")
    }
  }
}
