import AsyncBridge
import FixtureServer
import Foundation
import OperationCore
import OperationNetworking
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Runs the usage code of `AvatarsModel.swift` on the main actor. Every app-mode test target
// compiles this file too, in its own mode.

/// Tells whether code runs on the main dispatch queue, the main actor's executor. Swift Testing
/// on Linux drains that queue on a thread `Thread.isMainThread` does not call main, so the queue
/// is marked instead.
nonisolated enum MainQueueProbe {
  private static let key = DispatchSpecificKey<Bool>()

  /// Marks the main queue (idempotent).
  static func mark() {
    DispatchQueue.main.setSpecific(key: key, value: true)
  }

  /// Whether the caller runs on the main queue.
  static var isCurrent: Bool {
    DispatchQueue.getSpecific(key: key) == true
  }
}

@MainActor
@Suite struct AppModeTests {
  @Test func aBuiltForeignOperationIsAwaitedFromTheMainActor() async throws {
    let model = AvatarsModel(manager: OperationQueueManager(name: "avatars"))
    let avatar = try await model.legacyAvatar()
    #expect(avatar == Avatar(userID: 7, url: "legacy/7"))
  }

  @Test func aResultProducingOperationBuiltInAClosureIsAwaitedFromTheMainActor() async throws {
    let model = AvatarsModel(manager: OperationQueueManager(name: "avatars"))
    #expect(try await model.builtAvatar() == Avatar(userID: 10, url: "loaded/10"))
    #expect(try await model.squareOnTheQueue(7) == 49)
  }

  @Test func aCallRegistersOnTheMainActorBeforeItSuspends() async throws {
    guard #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) else {
      return
    }
    let manager = OperationQueueManager(name: "avatars")
    manager.isSuspended = true
    // An immediate task runs here, on the main actor, until it first suspends: `perform` runs in
    // its caller's isolation, so the operation is admitted by then (a call that hopped to the
    // global executor first would not be).
    let call = Task.immediate { try await manager.perform(FetchAvatar(userID: 6)) }
    #expect(manager.outstandingOperationCount == 1)
    manager.isSuspended = false
    #expect(try await call.value.userID == 6)
  }

  @Test func aCompletionHandlerOnTheMainQueueRunsOnTheMainActor() async throws {
    MainQueueProbe.mark()
    let manager = OperationQueueManager(name: "avatars")
    let model = AvatarsModel(manager: manager)
    model.load(FetchAvatar(userID: 3))
    // Waits for the completion handler too, which the main queue runs while this task waits.
    try await manager.waitUntilIdle()
    #expect(model.avatars[3]?.userID == 3)
    #expect(model.failures == 0)
    #expect(model.calledOnMainQueue)
  }

  @Test func aForeignHandlerOnTheMainQueueAssumesTheMainActor() async throws {
    MainQueueProbe.mark()
    let manager = OperationQueueManager(name: "avatars")
    let model = AvatarsModel(manager: manager)
    model.loadLegacy()
    try await manager.waitUntilIdle()
    #expect(model.avatars[8] == Avatar(userID: 8, url: "legacy/8"))
    #expect(model.calledOnMainQueue)
  }

  @Test func aProgressObserverRunsOnTheMainActorBeforeTheCallReturns() async throws {
    MainQueueProbe.mark()
    let model = AvatarsModel(manager: OperationQueueManager(name: "avatars"))
    let fetch = HalfwayAvatar(userID: 4)
    async let avatar = model.avatar(fetch)
    // The work waits halfway until the observer has run: a value reported just before the work
    // ends may be passed over for the outcome, so this is what makes the observer's call certain.
    var polls = 0
    while model.fraction != 0.5, polls < 30_000 {
      polls += 1
      try await Task.sleep(for: .milliseconds(1))
    }
    fetch.proceed()
    #expect(try await avatar.userID == 4)
    #expect(model.fraction == 0.5)
    #expect(model.calledOnMainQueue)
  }

  @Test func theSubclassIsAwaitedFromTheMainActor() async throws {
    let model = AvatarsModel(manager: OperationQueueManager(name: "avatars"))
    let avatar = try await model.avatar(userID: 5)
    #expect(avatar.url == "https://example.com/avatars/5.png")
  }

  @Test func aModelTypeIsDecodedOverHTTP() async throws {
    let server = try FixtureHTTPServer { request in
      .json(Data(#"{"userID": 9, "url": "\#(request.path).png"}"#.utf8))
    }
    defer { server.stop() }
    let manager = OperationQueueManager(name: "avatars")
    let session = URLSession.makeNetworkingSession()
    let fetch = NetworkingOperation<Avatar>(
      request: URLRequest(url: server.url("/avatars/9")), session: session)
    let avatar = try await manager.perform(fetch)
    #expect(avatar == Avatar(userID: 9, url: "/avatars/9.png"))
  }
}

/// Reports half its progress, then waits until ``proceed()`` before it finishes.
nonisolated final class HalfwayAvatar: ConcurrentOperation<Avatar, any Error>,
  @unchecked Sendable
{
  let userID: Int
  private let halfway = DispatchGroup()

  init(userID: Int) {
    self.userID = userID
    halfway.enter()
    super.init()
  }

  /// Lets the work finish.
  func proceed() {
    halfway.leave()
  }

  override func main() {
    reportProgress(completed: 1, total: 2)
    halfway.notify(queue: .global()) { [self] in
      finish(returning: Avatar(userID: userID, url: "halfway/\(userID)"))
    }
  }
}
