import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Coalescing foreign operations that carry no key of their own.
@Suite struct CoalescingForeignTests {
  /// 1,000 callers, half completion handlers and half awaiting tasks, each with its own legacy
  /// operation under one key: one request, one value for all.
  @Test func aThousandMixedCallersOnOneKeyShareOneExecution() async {
    let manager = OperationQueueManager()
    let events = EventLog(manager)
    let service = ManualQuestionService()
    let delivered = Locked(0)
    let allHandled = Gate()
    let key = "questions/stackoverflow/1"
    var tasks: [Task<[String], any Error>] = []
    for index in 0..<1_000 {
      let fetch = FetchTitlesOperation(site: "stackoverflow", service: service)
      if index.isMultiple(of: 2) {
        tasks.append(Task { try await manager.perform(fetch, coalescingKey: key) })
      } else {
        manager.enqueue(fetch, coalescingKey: key) { result in
          guard (try? result.get()) == ["one"] else { return }
          if delivered.withLock({
            $0 += 1; return $0
          }) == 500 {
            allHandled.open()
          }
        }
      }
    }
    // Every caller is on the one operation before it answers: one `enqueued`, 999 `joined`.
    #expect(await events.wait(count: 999) { $0.kind == .joined })
    service.answer(.success(["one"]))
    for task in tasks { #expect(await value(of: task) == ["one"]) }
    #expect(await allHandled.wait())
    #expect(service.requestCount == 1)
    #expect(events.events.filter { $0.kind.shortName == "enqueued" }.count == 1)
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func theSameInstanceHandedToAHandlerAndATaskRunsOnce() async {
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let handled = Gate()
    let returned = manager.enqueue(fetch) { result in
      if (try? result.get()) == ["once"] { handled.open() }
    }
    #expect(returned === fetch)
    let task = Task { try await manager.perform(fetch) }
    #expect(await service.firstRequest.wait())
    let joined = manager.enqueue(fetch) { _ in }
    #expect(joined === fetch)
    service.answer(.success(["once"]))
    #expect(await value(of: task) == ["once"])
    #expect(await handled.wait())
    #expect(service.requestCount == 1)
  }

  /// A caller that sees a plain `Operation` and one that reads the outcome share the work, and
  /// the plain one still learns of a failure.
  @Test func plainAndResultReadingCallersOfOneInstanceShareIt() async {
    struct Offline: Error {}
    let manager = OperationQueueManager()
    let events = EventLog(manager)
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "s", service: service)
    let plain = Task { try await manager.perform(fetch as Operation) }
    #expect(await service.firstRequest.wait())
    let reading = Task { try await manager.perform(fetch) }
    #expect(await events.wait { $0.kind == .joined })
    service.answer(.failure(Offline()))
    #expect(await error(of: plain) is Offline)
    #expect(await error(of: reading) is Offline)
    #expect(service.requestCount == 1)
  }

  @Test func equalKeysOfDifferentLegacyClassesNeverShareWork() async {
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    let fetching = Task {
      try await manager.perform(FetchTitlesOperation(site: "s", service: service), coalescingKey: 1)
    }
    #expect(await service.firstRequest.wait())
    let store = FixedQuestionStore(questions: [1: QuestionRecord(id: 1, title: "One")])
    let loading = Task {
      try await manager.perform(LoadQuestionOperation(id: 1, store: store), coalescingKey: 1)
    }
    #expect(await value(of: loading) == QuestionRecord(id: 1, title: "One"))
    service.answer(.success(["s"]))
    #expect(await value(of: fetching) == ["s"])
  }

  /// A joiner's own operation never runs: on corelibs its dependencies would keep unretained
  /// pointers to it, so it is detached from them, and once the work ends it is still unstarted.
  /// (That it is never cancelled later is pinned where the bridge is known to have let it go:
  /// `TypedResultFamilyTests`.)
  @Test func aDroppedJoinerIsDetachedFromItsDependencies() async {
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    let first = Task {
      try await manager.perform(
        FetchTitlesOperation(site: "s", service: service), coalescingKey: "k")
    }
    #expect(await service.firstRequest.wait())
    let upstream = BlockOperation {}
    let dropped = FetchTitlesOperation(site: "s", service: service)
    dropped.addDependency(upstream)
    let joiner = Task { try await manager.perform(dropped, coalescingKey: "k") }
    #expect(await eventually(within: .seconds(30)) { dropped.dependencies.isEmpty })
    service.answer(.success(["k"]))
    #expect(await value(of: first) == ["k"])
    #expect(await value(of: joiner) == ["k"])
    upstream.start()
    #expect(await becomesIdle(manager))
    #expect(!dropped.isCancelled && !dropped.isExecuting && !dropped.isFinished)
    #expect(service.requestCount == 1)
  }

  /// The foreign overloads are disfavoured: a `ConcurrentOperation` still takes the core's own
  /// path (indexed under its own key), even when its value is `Void`.
  @Test func aConcurrentOperationStillTakesTheCorePath() async {
    final class Ping: ConcurrentOperation<Void, any Error>, @unchecked Sendable {
      override init() { super.init(coalescingKey: "ping") }
      override func main() { finish(returning: ()) }
    }
    let manager = OperationQueueManager()
    manager.isSuspended = true
    let ping = Ping()
    let task = Task { try await manager.perform(ping) }
    #expect(await eventually(within: .seconds(30)) { manager.outstandingOperationCount == 1 })
    #expect(manager.inFlightOperation(for: ping.coalescingKey!) === ping)
    let handled = Gate()
    manager.enqueue(Ping()) { (_: Result<Void, any Error>) in handled.open() }
    #expect(manager.outstandingOperationCount == 1)
    manager.isSuspended = false
    _ = await value(of: task)
    #expect(await handled.wait())
  }
}
