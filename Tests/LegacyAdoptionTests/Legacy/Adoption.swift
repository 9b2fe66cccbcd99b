import Foundation
import OperationCore

// Step 2 of the migration: the legacy classes adopt `ResultProducingOperation` retroactively,
// without changing how they work. These are the lines docs/MIGRATING.md counts.

// Where a generic base holds the typed result, one conformance on the base serves every
// subclass (shapes 2 and 4). Per class where a subclass needs an outcome of its own, as one of
// shape 1's does (`PerformForeignTests`): a property declared in an extension cannot be
// overridden. `any Swift.Error`: a family's subclasses may nest an `Error` type of their own.

// Shape 1: three lines per class.
extension FetchTitlesOperation: ResultProducingOperation {
  var outcome: Result<[String], any Swift.Error>? { result }
}

// Shape 2, and its chained variant: three lines, once for the base.
extension AsyncResultOperation: ResultProducingOperation {
  var outcome: Result<Success, any Swift.Error>? { result?.mapError { $0 } }
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

// Shape 4: three lines, once for the base.
extension TypedResultOperation: ResultProducingOperation {
  var outcome: Result<Success, any Swift.Error>? { result?.mapError { $0 } }
}
