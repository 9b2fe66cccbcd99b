import Foundation

// Legacy shape 3: a singleton that runs `BlockOperation`s on its own queue and coalesces
// requests by scanning that queue for an operation with the same name.

/// Loads avatars; one download per id at a time, found by scanning the queue.
final class LegacyAvatarManager: @unchecked Sendable {
  /// The one instance the code base uses.
  static let shared = LegacyAvatarManager(download: { id in Data(id.utf8) })

  /// The queue every download runs on.
  let queue: OperationQueue
  private let download: @Sendable (String) -> Data
  private let lock = NSLock()
  private var avatars: [String: Data] = [:]

  init(download: @escaping @Sendable (String) -> Data) {
    self.download = download
    queue = OperationQueue()
    queue.maxConcurrentOperationCount = 4
  }

  /// The avatar loaded for `id`, if any.
  func avatar(for id: String) -> Data? { lock.withLock { avatars[id] } }

  /// An operation that downloads the avatar for `id` into the cache.
  func makeLoadOperation(id: String) -> BlockOperation {
    let operation = BlockOperation { [self] in
      let data = download(id)
      lock.withLock { avatars[id] = data }
    }
    operation.name = id
    return operation
  }

  /// Loads the avatar for `id` and calls `completion` with it, joining a download in progress.
  @discardableResult
  func loadAvatar(
    id: String, completion: @escaping @Sendable (Data?) -> Void
  ) -> BlockOperation {
    if let running = queue.operations.first(where: {
      $0.name == id && !$0.isCancelled && !$0.isFinished
    }) as? BlockOperation {
      let previous = running.completionBlock
      running.completionBlock = { [self] in
        previous?()
        completion(avatar(for: id))
      }
      return running
    }
    let operation = makeLoadOperation(id: id)
    operation.completionBlock = { [self] in completion(avatar(for: id)) }
    queue.addOperation(operation)
    return operation
  }
}
