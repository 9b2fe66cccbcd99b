import AsyncBridge
import LockedValue
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// The bug jam protection exists for: a subclass that starts its work and never calls
/// `finish`. Without protection it holds its queue slot forever and every caller waits.
final class ForgetsToFinish: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
  // No state of its own.
  override init() {
    super.init()
    name = "ForgetsToFinish"
  }

  init(key: Int) {
    super.init(coalescingKey: key)
    name = "ForgetsToFinish[\(key)]"
  }

  override func main() {
    // Starts its work… and never calls finish(returning:) or finish(throwing:).
  }
}

/// An operation that never finishes is reported (a `stalled` event once it executes longer
/// than the manager's `stallThreshold`) and, with a `timeout`, ended: its callers get
/// `OperationTimeoutError` and its queue slot goes to the next operation. See the "Jam
/// protection" section of docs/RELIABILITY.md.
@Suite struct JamProtectionTests {
  @Test func jammedOperationIsReportedStalledThenTimesOutAndTheQueueMovesOn() async throws {
    // On a test clock, the stall report comes first because the test says when time passes.
    let clock = TestClock()
    let manager = OperationQueueManager(
      name: "jam.both", maxConcurrentOperationCount: 1, clock: clock)
    manager.stallThreshold = .milliseconds(20)
    // Heard on the publishing thread: the advance that publishes an event has logged it.
    let log = EventLog(manager, hearing: .publishingThread)
    let jammed = ForgetsToFinish()
    jammed.timeout = .seconds(1)
    let behind = ManualOperation(ending: .returning(2))

    let caller = Task { try await manager.perform(jammed) }
    // The second task starts once the jam holds the queue: two tasks may run in either order.
    #expect(await log.wait(for: .started, of: jammed))
    let next = Task { try await manager.perform(behind) }
    #expect(await log.wait(for: .enqueued, of: behind))
    try await clock.waitUntilTimers(2)  // the stall check and the timeout
    await clock.advance(by: .milliseconds(20))
    #expect(log.events(.stalled, of: jammed).count == 1, "reported as advance returned")
    #expect(log.events(.started, of: behind).isEmpty)
    await clock.advance(by: .milliseconds(980))
    #expect(jammed.isCancelled, "timed out as advance returned")
    let outcome = await result(of: caller)
    await expectValue(2, from: next)

    guard case .failure(let error as OperationTimeoutError)? = outcome else {
      Issue.record("expected OperationTimeoutError, got \(String(describing: outcome))")
      return
    }
    #expect(error == OperationTimeoutError(timeout: .seconds(1), operationName: "ForgetsToFinish"))
    #expect(jammed.isCancelled && jammed.isFinished)
    #expect(await becomesIdle(manager))
    #expect(await log.flush(manager))
    #expect(log.kinds(of: jammed) == [.enqueued, .started, .stalled, .finished(.timedOut)])
    #expect(log.events(.stalled, of: jammed).first?.duration == .milliseconds(20))
    // The width-one queue was jammed until the timeout, and only until then.
    let order = log.events.map { ($0.operationID, $0.kind) }
    let jamEnded = try #require(
      order.firstIndex { $0 == (ObjectIdentifier(jammed), .finished(.timedOut)) })
    let nextStarted = try #require(
      order.firstIndex { $0 == (ObjectIdentifier(behind), .started) })
    #expect(jamEnded < nextStarted)
  }

  @Test func stalledEventNamesTheJamAndCancellingItFreesTheQueue() async throws {
    let manager = OperationQueueManager(name: "jam.stalled", maxConcurrentOperationCount: 1)
    manager.stallThreshold = .milliseconds(20)
    let log = EventLog(manager)
    let jammed = ForgetsToFinish()  // no timeout: only the report
    let behind = ManualOperation(ending: .returning(2))
    let caller = Task { try await manager.perform(jammed) }
    // The second task starts once the jam holds the queue: two tasks may run in either order.
    #expect(await log.wait(for: .started, of: jammed))
    let next = Task { try await manager.perform(behind) }

    #expect(await log.wait(for: .stalled, of: jammed))
    #expect(await log.wait(for: .enqueued, of: behind))
    // Jammed: the next operation cannot start while the only slot is held.
    #expect(log.events(.started, of: behind).isEmpty)
    #expect(jammed.isExecuting)
    #expect(manager.outstandingOperationCount == 2)

    // What a log watcher can do about it: cancel the operation the event names.
    jammed.cancel()
    await expectCancellation(of: caller)
    await expectValue(2, from: next)
    #expect(await becomesIdle(manager))
    #expect(await log.flush(manager))
    #expect(log.events(.stalled, of: jammed).count == 1)
  }

  @Test func jammedOperationSharedByManyCallersTimesOutForAllAndLaterWorkStartsFresh()
    async throws
  {
    let manager = OperationQueueManager(name: "jam.shared", maxConcurrentOperationCount: 2)
    manager.isSuspended = true  // the callers line up before the timeout starts counting
    let log = EventLog(manager)
    let jammed = ForgetsToFinish(key: 1)
    jammed.timeout = .milliseconds(50)
    let handlerResult = Locked<Result<Int, any Error>?>(nil)
    manager.enqueue(jammed) { result in handlerResult.withLock { $0 = result } }
    let callers = (0..<2).map { _ in Task { try await manager.perform(ForgetsToFinish(key: 1)) } }
    #expect(await log.wait(for: .joined, of: jammed, count: 2))

    manager.isSuspended = false
    for caller in callers {
      let outcome = await result(of: caller)
      #expect(throws: OperationTimeoutError.self) { try outcome?.get() }
    }
    #expect(await eventually { handlerResult.withLock { $0 } != nil })
    #expect(throws: OperationTimeoutError.self) { try handlerResult.withLock { $0 }?.get() }
    #expect(await log.wait(for: .finished(.timedOut), of: jammed))
    #expect(log.events(.finished(.timedOut), of: jammed).first?.callerCount == 3)

    // A request after the timeout does not join the timed-out operation: fresh work starts.
    let fresh = ForgetsToFinish(key: 1)
    fresh.timeout = .milliseconds(20)
    #expect(manager.enqueue(fresh) === fresh)
    #expect(await log.wait(for: .finished(.timedOut), of: fresh))
    #expect(await becomesIdle(manager))
  }
}
