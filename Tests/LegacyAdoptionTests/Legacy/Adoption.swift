import Foundation
import OperationCore

// Step 2 of the migration: the legacy classes adopt `ResultProducingOperation` retroactively,
// without changing how they work. These are the lines docs/MIGRATING.md counts.

// A generic legacy base cannot conform once for all its subclasses (`Output: Sendable` cannot
// be a condition of a conformance), so each concrete class that callers await conforms.

// Shape 1: three lines per class.
extension FetchTitlesOperation: ResultProducingOperation {
  var outcome: Result<[String], any Error>? { result }
}

// Shape 2, and its chained variant: three lines per class.
extension LoadQuestionOperation: ResultProducingOperation {
  var outcome: Result<QuestionRecord, any Error>? { result?.mapError { $0 } }
}

extension RenderQuestionOperation: ResultProducingOperation {
  var outcome: Result<String, any Error>? { result?.mapError { $0 } }
}

// Shape 3: a `BlockOperation` has no result; a small subclass reads it from the cache.
/// Downloads one avatar into ``LegacyAvatarManager``'s cache and exposes it as its outcome.
final class AvatarLoadOperation: BlockOperation, ResultProducingOperation,
  @unchecked Sendable
{
  private let manager: LegacyAvatarManager
  let id: String

  init(id: String, manager: LegacyAvatarManager) {
    self.manager = manager
    self.id = id
    super.init()
    let load = manager.makeLoadOperation(id: id)
    for block in load.executionBlocks { addExecutionBlock(block) }
  }

  var outcome: Result<Data, any Error>? { manager.avatar(for: id).map { .success($0) } }
}
