import Foundation
import OperationCore

// Step 3 of the migration: the same three pieces of work moved onto `ConcurrentOperation`,
// which brings typed failures, timeouts and key-based coalescing. docs/MIGRATING.md shows them.

/// Shape 1 moved over: the key is the site, so identical fetches share one request.
final class FetchTitles: ConcurrentOperation<[String], any Error>, @unchecked Sendable {
  private let service: any LegacyQuestionService
  private let site: String

  init(site: String, service: any LegacyQuestionService) {
    self.site = site
    self.service = service
    super.init(coalescingKey: site)
  }

  override func main() {
    service.fetchTitles(site: site) { [self] result in finish(with: result) }
  }
}

/// Shape 2's typed failure, able to say "cancelled" and "timed out" too.
enum QuestionLoadError: OperationFailure, Equatable {
  case notFound
  case cancelled
  case timedOut(OperationTimeoutError)

  init(cancellation: CancellationError) { self = .cancelled }
  init(timeout: OperationTimeoutError) { self = .timedOut(timeout) }
}

/// Shape 2 moved over, with a typed failure and a key.
final class LoadQuestion: ConcurrentOperation<QuestionRecord, QuestionLoadError>,
  @unchecked Sendable
{
  private let store: any LegacyQuestionStore
  private let id: Int

  init(id: Int, store: any LegacyQuestionStore) {
    self.id = id
    self.store = store
    super.init(coalescingKey: id)
  }

  override func main() {
    store.question(id: id) { [self] record in
      finish(with: record.map { .success($0) } ?? .failure(.notFound))
    }
  }
}

/// The chained variant moved over: upstream failure or cancellation propagates as such.
final class RenderQuestion: ChainedOperation<QuestionRecord, String, QuestionLoadError>,
  @unchecked Sendable
{
  override func main(input: QuestionRecord) {
    finish(returning: "#\(input.id): \(input.title)")
  }
}

/// Shape 3 moved over: the avatar is the value, the id the key; no queue scanning.
final class LoadAvatar: ConcurrentOperation<Data, any Error>, @unchecked Sendable {
  private let download: @Sendable (String) -> Data
  private let id: String

  init(id: String, download: @escaping @Sendable (String) -> Data) {
    self.id = id
    self.download = download
    super.init(coalescingKey: id)
  }

  override func main() {
    finish(returning: download(id))
  }
}
