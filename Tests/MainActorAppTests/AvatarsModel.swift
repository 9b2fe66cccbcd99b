import AsyncBridge
import Foundation
import OperationCore

// The usage code of README ("Calling from main-actor code") and of AsyncBridge's article
// "Calling from main-actor code", as written there. Every app-mode test target compiles this
// file (MainActorAppTests holds it; the others link to it), each in its own mode, with warnings
// as errors.

/// A decoded model type. `nonisolated`: in a module that is MainActor by default, a plain
/// struct's `Decodable` conformance is main-actor isolated and cannot satisfy the library's
/// `Sendable` requirements.
nonisolated struct Avatar: Decodable, Sendable, Equatable {
  let userID: Int
  let url: String
}

/// The README's operation. `nonisolated`: in a module that is MainActor by default, a subclass
/// of a nonisolated class would otherwise be main-actor isolated, and its overrides could not
/// override the nonisolated `main()` and `operationWasCancelled()`.
nonisolated final class FetchAvatar: ConcurrentOperation<Avatar, any Error>, @unchecked Sendable {
  let userID: Int

  init(userID: Int) {
    self.userID = userID
    super.init(coalescingKey: userID)
  }

  override func main() {
    reportProgress(completed: 1, total: 2)
    finish(returning: Avatar(userID: userID, url: "https://example.com/avatars/\(userID).png"))
  }

  override func operationWasCancelled() {
    // A real download cancels its data task here.
  }
}

/// An existing operation that takes its completion handler at init.
nonisolated final class LegacyAvatarOperation: Operation, @unchecked Sendable {
  private let userID: Int
  private let completionHandler: @Sendable (Result<Avatar, any Error>) -> Void

  init(userID: Int, completionHandler: @escaping @Sendable (Result<Avatar, any Error>) -> Void) {
    self.userID = userID
    self.completionHandler = completionHandler
  }

  override func main() {
    completionHandler(.success(Avatar(userID: userID, url: "legacy/\(userID)")))
  }
}

/// An existing operation that exposes its outcome: a `ResultProducingOperation`, built in a
/// closure so that a request that joins work in flight builds nothing.
nonisolated final class LoadAvatarOperation: Operation, ResultProducingOperation,
  @unchecked Sendable
{
  let userID: Int
  // `result` lives under `lock`.
  private let lock = NSLock()
  private var result: Result<Avatar, any Swift.Error>?

  init(userID: Int) {
    self.userID = userID
  }

  var outcome: Result<Avatar, any Swift.Error>? { lock.withLock { result } }

  override func main() {
    lock.withLock { result = .success(Avatar(userID: userID, url: "loaded/\(userID)")) }
  }
}

/// A view model of an app: main-actor code calling the library as README's step 12 writes it
/// (`legacyAvatar()`, `load(_:)`, `avatar(_:)`), plus a subclass awaited (`avatar(userID:)`) and
/// a record of where its callbacks ran.
@MainActor
final class AvatarsModel {
  let manager: OperationQueueManager
  private(set) var avatars: [Int: Avatar] = [:]
  private(set) var fraction = 0.0
  private(set) var failures = 0
  /// Whether every callback so far ran on the main queue, the main actor's executor.
  private(set) var calledOnMainQueue = true
  init(manager: OperationQueueManager) { self.manager = manager }

  /// Shape 1: an existing operation built around the manager's completion handler.
  func legacyAvatar() async throws -> Avatar {
    try await manager.perform(coalescingKey: "avatar/7") { complete in
      LegacyAvatarOperation(userID: 7, completionHandler: complete)
    }
  }

  /// A result-producing operation, built only when nothing is in flight for its key.
  func builtAvatar() async throws -> Avatar {
    try await manager.perform(coalescingKey: "avatar/10") { LoadAvatarOperation(userID: 10) }
  }

  /// An `async` closure run on the manager's queue.
  func squareOnTheQueue(_ value: Int) async throws -> Int {
    try await manager.run { value * value }
  }

  /// Shape 2: a completion handler delivered on the main queue touches main-actor state.
  func load(_ op: FetchAvatar) {
    manager.enqueue(op, callbackQueue: .dispatch(.main)) { result in self.handled(result) }
  }

  /// A foreign operation's completion handler on the main queue (a `@Sendable` one) reaches
  /// main-actor state through `MainActor.assumeIsolated`.
  func loadLegacy() {
    manager.enqueue(
      coalescingKey: "avatar/8", callbackQueue: .dispatch(.main),
      { complete in LegacyAvatarOperation(userID: 8, completionHandler: complete) }
    ) { result in MainActor.assumeIsolated { self.handled(result) } }
  }

  /// Shape 3: a progress observer touches main-actor state.
  func avatar(_ op: ConcurrentOperation<Avatar, any Error>) async throws -> Avatar {
    try await manager.perform(op, onProgress: { self.showProgress($0) })
  }

  /// Shape 4: the subclass, awaited.
  func avatar(userID: Int) async throws -> Avatar {
    let avatar = try await manager.perform(FetchAvatar(userID: userID))
    avatars[userID] = avatar
    return avatar
  }

  func handled(_ result: Result<Avatar, any Error>) {
    calledOnMainQueue = calledOnMainQueue && MainQueueProbe.isCurrent
    if case .success(let a) = result { avatars[a.userID] = a } else { failures += 1 }
  }

  func showProgress(_ progress: OperationProgress) {
    calledOnMainQueue = calledOnMainQueue && MainQueueProbe.isCurrent
    fraction = progress.fractionCompleted ?? 0
  }
}
