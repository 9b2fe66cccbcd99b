import AsyncBridge
import Foundation
import LockedValue
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// Foreign operations that take their completion handler at init (shape 0), built by the
/// manager around a handler of its own: `perform { complete in … }`,
/// `perform(coalescingKey:) { complete in … }` and `enqueue(coalescingKey:_:completion:)`.
@Suite struct CompletionHandlerShapeTests {
  // MARK: What the handler receives

  @Test func theValueIsWhatTheHandlerReceivesAfterTheOperationReportedFinished() async {
    let manager = OperationQueueManager()
    let service = ManualUserService()
    let task = Task {
      try await manager.perform { complete in
        UserFetchOperation(userID: 7, service: service, completionHandler: complete)
      }
    }
    #expect(await eventually { service.requestCount == 1 })
    service.answer(.success(ann))
    await expectValue(ann, from: task)
    #expect(await becomesIdle(manager))
  }

  @Test func theValueIsWhatTheHandlerReceivesLaterOnACallBackQueue() async {
    let manager = OperationQueueManager()
    let callBackQueue = DispatchQueue(label: "legacy.callBack")
    let factory = UserFetchFactory(callBackQueue: callBackQueue)
    let results = Recorder<Result<LegacyUser, any Error>>()
    callBackQueue.suspend()
    manager.enqueue({ complete in factory.make(complete) }) { results.record($0) }
    #expect(await eventually { factory.service.requestCount == 1 })
    factory.service.answer(.success(ann))
    // Finished, its handler's call waiting on the suspended queue: the caller still waits.
    #expect(factory.last?.isFinished == true)
    #expect(results.count == 0)
    #expect(manager.outstandingOperationCount == 1)
    callBackQueue.resume()
    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.value == ann)
    #expect(await becomesIdle(manager))
  }

  /// A trace identifier, as a tracing library keeps one.
  enum Trace {
    @TaskLocal static var requestID = "none"
  }

  /// The builder runs in the calling task before it suspends: it sees the caller's task-local
  /// values, and may hand them to the operation it builds.
  @Test func theBuilderSeesTheCallersTaskLocalValues() async {
    let manager = OperationQueueManager()
    let seen = Locked<String?>(nil)
    let task = Task {
      try await Trace.$requestID.withValue("req-7") {
        try await manager.perform { complete in
          seen.withLock { $0 = Trace.requestID }
          return AnswerFirstOperation(
            answers: [1], finishesAfterAnswering: true, completionHandler: complete)
        }
      }
    }
    await expectValue(1, from: task)
    #expect(seen.withLock { $0 } == "req-7")
    #expect(await becomesIdle(manager))
  }

  @Test func theValueMayComeBeforeTheOperationReportsFinished() async {
    let manager = OperationQueueManager()
    let built = Locked<AnswerFirstOperation?>(nil)
    let task = Task {
      try await manager.perform { complete in
        let operation = AnswerFirstOperation(answers: [1], completionHandler: complete)
        built.withLock { $0 = operation }
        return operation
      }
    }
    await expectValue(1, from: task)
    let operation = built.withLock { $0 }
    #expect(operation?.isExecuting == true)
    operation?.finishNow()
    #expect(await becomesIdle(manager))
  }

  @Test func aSecondCallOfTheHandlerIsIgnored() async {
    let manager = OperationQueueManager()
    let value = await completing {
      try? await manager.perform { complete in
        AnswerFirstOperation(
          answers: [1, 2], finishesAfterAnswering: true, completionHandler: complete)
      }
    }
    #expect(value == 1)
  }

  // MARK: A handler released uncalled

  @Test func anOperationFreedWithoutCallingItsHandlerGivesATypedError() async {
    let manager = OperationQueueManager()
    let service = ManualUserService()
    let task = Task {
      try await manager.perform { complete in
        ForgetfulUserFetchOperation(userID: 7, service: service, completionHandler: complete)
      }
    }
    #expect(await eventually { service.requestCount == 1 })
    service.answer(.success(ann))
    let error = await error(of: task)
    #expect(
      error as? ForeignOperationError
        == .completionHandlerFreed(operationName: "ForgetfulUserFetchOperation"))
    #expect(await becomesIdle(manager))
  }

  /// The limit: an operation kept alive elsewhere keeps its handler, so its callers wait until
  /// it is released, and get the error then.
  @Test func anOperationKeptAliveElsewhereGivesTheErrorWhenItIsFreed() async {
    let manager = OperationQueueManager()
    let service = ManualUserService()
    let keeper = Locked<ForgetfulUserFetchOperation?>(nil)
    let results = Recorder<Result<LegacyUser, any Error>>()
    manager.enqueue({ complete in
      let operation = ForgetfulUserFetchOperation(
        userID: 7, service: service, completionHandler: complete)
      keeper.withLock { $0 = operation }
      return operation
    }) { results.record($0) }
    #expect(await eventually { service.requestCount == 1 })
    service.answer(.success(ann))
    #expect(keeper.withLock { $0?.isFinished } == true)
    #expect(results.count == 0)
    #expect(manager.outstandingOperationCount == 1)
    keeper.withLock { $0 = nil }
    #expect(await results.wait(forCount: 1))
    #expect(
      results.values.first?.failure as? ForeignOperationError
        == .completionHandlerFreed(operationName: "ForgetfulUserFetchOperation"))
    #expect(await becomesIdle(manager))
  }

  @Test func anOperationThatDropsTheHandlerAtOnceFailsAtOnce() async {
    let manager = OperationQueueManager()
    let task = Task {
      try await manager.perform { (_: @escaping @Sendable (Result<Int, any Error>) -> Void) in
        BlockOperation {}
      }
    }
    #expect(await error(of: task) is ForeignOperationError)
    #expect(await becomesIdle(manager))
  }

  // MARK: Cancellation

  @Test func oneCallerLeavingKeepsTheWorkAndTheLastLeavingCancelsIt() async {
    let manager = OperationQueueManager()
    let events = EventLog(manager)
    let factory = UserFetchFactory()
    let first = Task { try await manager.perform(coalescingKey: "user/7") { factory.make($0) } }
    #expect(await eventually { factory.service.requestCount == 1 })
    let second = Task { try await manager.perform(coalescingKey: "user/7") { factory.make($0) } }
    #expect(await events.wait { $0.kind == .joined })
    first.cancel()
    #expect(await error(of: first) is CancellationError)
    #expect(factory.last?.isCancelled == false)
    second.cancel()
    #expect(await error(of: second) is CancellationError)
    #expect(await eventually { factory.last?.isCancelled == true })
    #expect(await becomesIdle(manager))
    #expect(factory.buildCount == 1)
  }

  @Test func aCompletionHandlerCallerKeepsTheWorkWhenTheAwaitingTaskLeaves() async {
    let manager = OperationQueueManager()
    let factory = UserFetchFactory()
    let results = Recorder<Result<LegacyUser, any Error>>()
    let task = Task { try await manager.perform(coalescingKey: "user/7") { factory.make($0) } }
    #expect(await eventually { factory.service.requestCount == 1 })
    manager.enqueue(coalescingKey: "user/7", { factory.make($0) }) { results.record($0) }
    task.cancel()
    #expect(await error(of: task) is CancellationError)
    factory.service.answer(.success(ann))
    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.value == ann)
    #expect(factory.buildCount == 1)
    #expect(factory.last?.isCancelled == false)
  }

  /// Cancelled by someone who holds it, the operation calls its handler with its own
  /// cancellation error: that is what its callers get.
  @Test func callersGetWhatTheLegacyCancelDeliversToTheHandler() async {
    let manager = OperationQueueManager()
    let factory = UserFetchFactory()
    let task = Task { try await manager.perform { factory.make($0) } }
    #expect(await eventually { factory.service.requestCount == 1 })
    factory.last?.cancel()
    #expect(await error(of: task) as? LegacyFetchError == .cancelled)
    #expect(await becomesIdle(manager))
  }

  @Test func cancelAllCancelsTheCallersAndTheOperation() async {
    let manager = OperationQueueManager()
    let events = EventLog(manager)
    let factory = UserFetchFactory()
    let tasks = (0..<3).map { _ in
      Task { try await manager.perform(coalescingKey: "user/7") { factory.make($0) } }
    }
    #expect(await events.wait(count: 2) { $0.kind == .joined })
    manager.cancelAllOperations()
    for task in tasks { #expect(await error(of: task) is CancellationError) }
    #expect(await eventually { factory.last?.isCancelled == true })
    #expect(await becomesIdle(manager))
  }

  /// The legacy `cancel()` finishes a pending operation at once: it touches no queue, since
  /// the adapter is what sits in it.
  @Test func aLegacyCancelFinishingPendingWorkNeverHangsTheQueue() async {
    let manager = OperationQueueManager(maxConcurrentOperationCount: 1)
    for _ in 0..<100 {
      let blockerService = ManualUserService()
      let blocker = Task {
        try await manager.perform { complete in
          UserFetchOperation(userID: 0, service: blockerService, completionHandler: complete)
        }
      }
      #expect(await eventually { blockerService.requestCount == 1 })
      let factory = UserFetchFactory()
      let pending = (0..<3).map { _ in Task { try await manager.perform { factory.make($0) } } }
      #expect(await eventually { manager.outstandingOperationCount == 4 })
      for task in pending { task.cancel() }
      for task in pending { #expect(await error(of: task) is CancellationError) }
      blockerService.answer(.success(ann))
      await expectValue(ann, from: blocker)
      guard await becomesIdle(manager) else {
        Issue.record("the queue hung")
        return
      }
      #expect(factory.service.requestCount == 0)
    }
  }

  // MARK: Coalescing

  @Test func aThousandMixedCallersOnOneKeyShareOneExecution() async {
    let manager = OperationQueueManager()
    let events = EventLog(manager)
    let factory = UserFetchFactory()
    let results = Recorder<Result<LegacyUser, any Error>>()
    let first = Task { try await manager.perform(coalescingKey: "user/7") { factory.make($0) } }
    #expect(await eventually { factory.service.requestCount == 1 })
    var tasks = [first]
    for index in 1..<1_000 {
      if index.isMultiple(of: 2) {
        manager.enqueue(coalescingKey: "user/7", { factory.make($0) }) { results.record($0) }
      } else {
        tasks.append(
          Task { try await manager.perform(coalescingKey: "user/7") { factory.make($0) } })
      }
    }
    #expect(await events.wait(count: 999) { $0.kind == .joined })
    factory.service.answer(.success(ann))
    for task in tasks { await expectValue(ann, from: task) }
    #expect(await results.wait(forCount: 499))
    #expect(results.values.allSatisfy { $0.value == ann })
    #expect(factory.buildCount == 1)
    #expect(factory.service.requestCount == 1)
    #expect(await becomesIdle(manager))
  }

  @Test func aKeyScopesWorkByItsValueType() async {
    let manager = OperationQueueManager()
    let users = UserFetchFactory()
    let user = Task { try await manager.perform(coalescingKey: "7") { users.make($0) } }
    let number = Task {
      try await manager.perform(coalescingKey: "7") { complete in
        AnswerFirstOperation(
          answers: [7], finishesAfterAnswering: true, completionHandler: complete)
      }
    }
    await expectValue(7, from: number)
    #expect(await eventually { users.service.requestCount == 1 })
    users.service.answer(.success(ann))
    await expectValue(ann, from: user)
  }

  /// A request that hands over an operation already built (step 1) and joins work in flight
  /// drops it: the operation is left as it is, never started and never cancelled, so its own
  /// handler is never called, while the request's caller gets the shared value.
  /// docs/MIGRATING.md lists it as a migration hazard; the closure shape, whose joiner builds
  /// nothing, gives every caller the value.
  @Test func aDroppedBuiltOperationsOwnHandlerIsNeverCalled() async {
    let manager = OperationQueueManager()
    let events = EventLog(manager)
    let service = ManualUserService()
    let ownResults = Recorder<Result<LegacyUser, any Error>>()
    let running = UserFetchOperation(userID: 7, service: service) { _ in }
    let first = Task { try await manager.perform(running, coalescingKey: "user/7") }
    #expect(await eventually { service.requestCount == 1 })
    // Handed over through a box the task empties, so only the bridge holds the operation.
    let handOver = Locked<UserFetchOperation?>(
      UserFetchOperation(userID: 7, service: service) { ownResults.record($0) })
    let dropped = handOver.withLock { WeakReference($0!) }
    let second = Task {
      try await manager.perform(handOver.withLock { $0.take()! }, coalescingKey: "user/7")
    }
    #expect(await events.wait { $0.kind == .joined })
    let migrated = Task {
      try await manager.perform(coalescingKey: "user/7") { complete in
        UserFetchOperation(userID: 7, service: service, completionHandler: complete)
      }
    }
    service.answer(.success(ann))
    await expectSuccess(of: first)
    await expectSuccess(of: second)  // Its caller shares the work.
    // Freed uncalled: nothing can call its handler any more.
    #expect(await eventually { dropped.isFreed })
    #expect(ownResults.values.isEmpty)
    #expect(await eventually { service.requestCount == 2 })  // Different key scopes.
    service.answer(.success(ann))
    await expectValue(ann, from: migrated)
  }

  // MARK: Queue control, deadlines, events

  @Test func aSuspendedQueueHoldsTheOperationUntilResumed() async {
    let manager = OperationQueueManager()
    manager.isSuspended = true
    let factory = UserFetchFactory()
    let task = Task { try await manager.perform(priority: .high) { factory.make($0) } }
    #expect(await eventually { manager.outstandingOperationCount == 1 })
    #expect(factory.service.requestCount == 0)
    manager.isSuspended = false
    #expect(await eventually { factory.service.requestCount == 1 })
    factory.service.answer(.success(ann))
    await expectValue(ann, from: task)
  }

  @Test func aHigherPriorityRequestStartsFirst() async {
    let manager = OperationQueueManager(maxConcurrentOperationCount: 1)
    manager.isSuspended = true
    let early = UserFetchFactory()
    let urgent = UserFetchFactory()
    let results = Recorder<Result<LegacyUser, any Error>>()
    manager.enqueue(priority: .veryLow, { early.make($0) }) { results.record($0) }
    manager.enqueue(priority: .veryHigh, { urgent.make($0) }) { results.record($0) }
    manager.isSuspended = false
    #expect(await eventually { urgent.service.requestCount == 1 })
    #expect(early.service.requestCount == 0)  // Width 1: it waits for the urgent one.
    urgent.service.answer(.success(ann))
    #expect(await eventually { early.service.requestCount == 1 })
    early.service.answer(.success(ann))
    #expect(await results.wait(forCount: 2))
  }

  @Test func aCallersDeadlineLeavesTheWorkToTheOthers() async throws {
    let clock = TestClock()
    let manager = OperationQueueManager(clock: clock)
    let factory = UserFetchFactory()
    let patient = Task { try await manager.perform(coalescingKey: "user/7") { factory.make($0) } }
    #expect(await eventually { factory.service.requestCount == 1 })
    let hurried = Task {
      try await manager.perform(coalescingKey: "user/7", timeout: .seconds(5)) { factory.make($0) }
    }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(5))
    #expect(await error(of: hurried) is OperationTimeoutError)
    factory.service.answer(.success(ann))
    await expectValue(ann, from: patient)
    #expect(factory.buildCount == 1)
  }

  @Test func eventsNameTheLegacyOperation() async {
    let manager = OperationQueueManager()
    let events = EventLog(manager)
    let factory = UserFetchFactory()
    let task = Task { try await manager.perform(coalescingKey: "user/7") { factory.make($0) } }
    #expect(await eventually { factory.service.requestCount == 1 })
    factory.service.answer(.success(ann))
    await expectValue(ann, from: task)
    #expect(await events.flush(manager))
    let kinds = events.events.map(\.kind.shortName)
    #expect(kinds == ["enqueued", "started", "finished(success)"], "\(kinds)")
    #expect(events.events.allSatisfy { $0.operationName == "UserFetchOperation" })
  }
}

/// A legacy subclass with a bug: it finishes without calling its completion handler.
final class ForgetfulUserFetchOperation: LegacyConcurrentOperation<LegacyUser>,
  @unchecked Sendable
{
  let userID: Int
  private let service: ManualUserService

  init(
    userID: Int, service: ManualUserService,
    completionHandler: ((Result<LegacyUser, any Error>) -> Void)?
  ) {
    self.userID = userID
    self.service = service
    super.init(completionHandler: completionHandler)
  }

  override func main() {
    service.fetchUser(id: userID) { [weak self] _ in self?.state = .finished }
  }
}

/// An operation that calls its handler with each of `answers` as soon as it starts, and
/// reports finished then, or when told.
final class AnswerFirstOperation: LegacyConcurrentOperation<Int>, @unchecked Sendable {
  private let answers: [Int]
  private let finishesAfterAnswering: Bool
  private let handler: (Result<Int, any Error>) -> Void

  init(
    answers: [Int], finishesAfterAnswering: Bool = false,
    completionHandler: @escaping (Result<Int, any Error>) -> Void
  ) {
    self.answers = answers
    self.finishesAfterAnswering = finishesAfterAnswering
    handler = completionHandler
    super.init(completionHandler: nil)
  }

  override func main() {
    for answer in answers { handler(.success(answer)) }
    if finishesAfterAnswering { finishNow() }
  }

  /// Reports finished.
  func finishNow() { finish(result: .success(0)) }
}
