import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// The three steps of docs/MIGRATING.md, on each legacy shape: await it untouched, read its
/// outcome through `ResultProducingOperation`, then move it onto `ConcurrentOperation`.
@Suite struct MigrationPathTests {
  let store = FixedQuestionStore(questions: [42: QuestionRecord(id: 42, title: "Answer")])

  @Test func shapeOneResultCompletionBaseClass() async throws {
    let manager = OperationQueueManager()
    let service = ManualQuestionService()
    // Step 1: untouched. The legacy completion handler still runs; the caller awaits the end.
    let handled = Gate()
    let legacy = FetchTitlesOperation(site: "so", service: service)
    legacy.completionHandler = { _ in handled.open() }
    let step1 = Task { try await manager.perform(legacy as Operation) }
    #expect(await service.firstRequest.wait())
    service.answer(.success(["a"]))
    _ = await value(of: step1)
    #expect(await handled.wait())
    // Step 2: the retroactive conformance gives the value.
    let step2 = Task {
      try await manager.perform(FetchTitlesOperation(site: "so", service: service))
    }
    #expect(await eventually(within: .seconds(30)) { service.requestCount == 2 })
    service.answer(.success(["b"]))
    #expect(await value(of: step2) == ["b"])
    // Step 3: a ConcurrentOperation coalesces by its own key and takes a caller deadline.
    let step3 = Task { try await manager.perform(FetchTitles(site: "so", service: service)) }
    #expect(await eventually(within: .seconds(30)) { service.requestCount == 3 })
    let deadline = Task {
      try await manager.perform(
        FetchTitles(site: "so", service: service), timeout: .milliseconds(20))
    }
    #expect(await error(of: deadline) is OperationTimeoutError)
    service.answer(.success(["c"]))
    #expect(await value(of: step3) == ["c"])
    #expect(service.requestCount == 3)
  }

  @Test func shapeTwoTypedResultBaseClassAndItsChainedVariant() async throws {
    let manager = OperationQueueManager()
    // Step 1: awaited as a plain operation, its result read from it afterwards. (This class
    // conforms to `ResultProducingOperation` in this target, so even a plain caller hears of
    // the failure; an unconformed one would return and leave it in `result`.)
    let missing = LoadQuestionOperation(id: 1, store: store)
    let step1 = Task { try await manager.perform(missing as Operation) }
    #expect(await error(of: step1) as? LegacyAPIError == .notFound)
    #expect(missing.result == .failure(.notFound))
    // Step 2: the value, and the chained variant after its dependency.
    let load = LoadQuestionOperation(id: 42, store: store)
    let render = RenderQuestionOperation()
    render.addDependency(load)
    manager.enqueue(load) { _ in }
    let step2 = Task { try await manager.perform(render) }
    #expect(await value(of: step2) == "#42: Answer")
    // Step 3: typed failures, with cancellation and timeout as cases of their own.
    do throws(QuestionLoadError) {
      _ = try await manager.perform(RenderQuestion(upstream: LoadQuestion(id: 1, store: store)))
      Issue.record("expected notFound")
    } catch {
      #expect(error == .notFound)
    }
    let rendered = try await manager.perform(
      RenderQuestion(upstream: LoadQuestion(id: 42, store: store)))
    #expect(rendered == "#42: Answer")
  }

  @Test func shapeThreeSingletonThatScansItsQueue() async throws {
    let manager = OperationQueueManager()
    let avatars = LegacyAvatarManager { id in Data(id.utf8) }
    // Step 1: the singleton's own operations, awaited where they run.
    let enqueued = avatars.loadAvatar(id: "1") { _ in }
    try await manager.waitUntilFinished(enqueued)
    #expect(avatars.avatar(for: "1") == Data("1".utf8))
    // ... or its block operations, run on the manager with a key instead of a queue scan.
    try await manager.perform(avatars.makeLoadOperation(id: "2"), coalescingKey: "avatar/2")
    #expect(avatars.avatar(for: "2") == Data("2".utf8))
    // Step 2: a small subclass exposes the value.
    let data = try await manager.perform(AvatarLoadOperation(id: "3", manager: avatars))
    #expect(data == Data("3".utf8))
    // Step 3: the value is the operation's own; the id is its key.
    let loaded = try await manager.perform(LoadAvatar(id: "4") { Data($0.utf8) })
    #expect(loaded == Data("4".utf8))
  }
}
