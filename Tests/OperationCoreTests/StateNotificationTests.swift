import Foundation
import LockedValue
import OperationBridgeTesting
import TestSupport
import Testing

@testable import OperationCore

/// Which key-value notifications an operation sends, and when: `isCancelled` turns true with a
/// notification on every path, and before the release's. corelibs has no key-value observing
/// (its `willChangeValue`/`didChangeValue` cannot be overridden or observed), so these tests
/// read the changes where the operation sends them, at ``ConcurrentOperation/notify(_:)``.
/// The keys and their nesting on Apple platforms are that method's platform branch.
@Suite struct StateNotificationTests {
  @Test func aTimeoutNotifiesTheCancellationBeforeTheRelease() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(name: "notify.timeout", clock: clock)
    let operation = NotifyingOperation()
    operation.timeout = .milliseconds(40)
    let results = ResultRecorder()
    manager.enqueue(operation) { results.record($0) }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .milliseconds(40))

    #expect(await results.wait(forCount: 1))
    #expect(await becomesIdle(manager))
    #expect(operation.changes == [.cancelled(isCancelled: true), .released])
  }

  @Test func anUpstreamsCancellationNotifiesTheDownstreamsCancellation() async {
    let manager = OperationQueueManager(name: "notify.upstream")
    let upstream = ManualOperation()
    let downstream = NotifyingChainedOperation(upstream: upstream)
    let results = Recorder<Result<Int, any Error>>()
    manager.enqueue(downstream) { results.record($0) }
    #expect(await upstream.started.wait())
    upstream.cancel()

    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.failure is CancellationError)
    #expect(await becomesIdle(manager))
    #expect(downstream.changes == [.cancelled(isCancelled: true), .released])
  }

  @Test func aFollowerOfCancelledWorkNotifiesItsCancellation() async {
    let manager = OperationQueueManager(name: "notify.follower")
    manager.isSuspended = true
    let work = NotifyingOperation(key: 3)  // Of the follower's class: keys of one class join.
    let follower = NotifyingOperation(key: 3)
    manager.enqueue(work) { _ in }
    manager.enqueue(follower) { _ in }  // Joins the work: the follower is dropped and follows it.
    work.cancel()

    #expect(follower.isCancelled)
    #expect(follower.changes == [.cancelled(isCancelled: true), .released])
    manager.isSuspended = false
    #expect(await becomesIdle(manager))
  }

  @Test func cancelLeavesTheCancellationsNotificationToFoundation() async {
    let manager = OperationQueueManager(name: "notify.cancel")
    let operation = NotifyingOperation()
    manager.enqueue(operation) { _ in }
    #expect(await operation.started.wait())
    operation.cancel()

    #expect(await becomesIdle(manager))
    // `Operation.cancel()`, which `cancel()` calls, notifies `isCancelled` on Apple platforms.
    #expect(operation.changes == [.released])
  }

  @Test func finishingNotifiesTheReleaseAlone() async {
    let manager = OperationQueueManager(name: "notify.finish")
    let operation = NotifyingOperation(ending: .returning(1))
    manager.enqueue(operation) { _ in }

    #expect(await becomesIdle(manager))
    #expect(operation.changes == [.released])
  }
}

/// A state change an operation notified, with what `isCancelled` read then.
private enum NotifiedChange: Equatable {
  case cancelled(isCancelled: Bool)
  case released

  init(_ change: ConcurrentOperation<Int, any Error>.StateChange, isCancelled: Bool) {
    switch change {
    case .cancelled: self = .cancelled(isCancelled: isCancelled)
    case .released: self = .released
    }
  }
}

/// A test operation that records the state changes it notifies.
private final class NotifyingOperation: TestOperation<any Error>, @unchecked Sendable {
  private let notified = Locked<[NotifiedChange]>([])

  var changes: [NotifiedChange] { notified.withLock { $0 } }

  override func notify(_ change: StateChange) {
    let entry = NotifiedChange(change, isCancelled: isCancelled)
    notified.withLock { $0.append(entry) }
    super.notify(change)
  }
}

/// A chained operation that passes its input on and records the state changes it notifies.
private final class NotifyingChainedOperation: ChainedOperation<Int, Int, any Error>,
  @unchecked Sendable
{
  private let notified = Locked<[NotifiedChange]>([])

  var changes: [NotifiedChange] { notified.withLock { $0 } }

  override func main(input: Int) { finish(returning: input) }

  override func notify(_ change: StateChange) {
    let entry = NotifiedChange(change, isCancelled: isCancelled)
    notified.withLock { $0.append(entry) }
    super.notify(change)
  }
}
