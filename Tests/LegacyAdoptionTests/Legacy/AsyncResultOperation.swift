import Foundation

// Legacy shape 2: an "async result operation" base class with typed `Success` and `Failure`,
// and a chained variant that takes its input from a dependency. Its `cancel()` is the careful
// kind: a pending operation stays pending until its queue starts it.

/// An asynchronous operation with a typed result.
class AsyncResultOperation<Success, Failure: Error>: Operation, @unchecked Sendable {
  private let lock = NSLock()
  private var executing = false
  private var finished = false
  private var storedResult: Result<Success, Failure>?

  override var isAsynchronous: Bool { true }
  override var isExecuting: Bool { lock.withLock { executing } }
  override var isFinished: Bool { lock.withLock { finished } }

  /// The result, once the operation has finished.
  var result: Result<Success, Failure>? { lock.withLock { storedResult } }

  /// The failure to finish with when the operation is cancelled.
  var cancellationFailure: Failure? { nil }

  override func start() {
    guard !isCancelled else {
      finish(with: nil)
      return
    }
    willChangeValue(forKey: "isExecuting")
    lock.withLock { executing = true }
    didChangeValue(forKey: "isExecuting")
    main()
  }

  override func cancel() {
    super.cancel()
    if isExecuting { finish(with: cancellationFailure.map { .failure($0) }) }
  }

  /// Stores `result` and finishes; only the first call counts.
  final func finish(with result: Result<Success, Failure>?) {
    let first = lock.withLock { () -> Bool in
      guard !finished else { return false }
      storedResult = result
      return true
    }
    guard first else { return }
    willChangeValue(forKey: "isExecuting")
    willChangeValue(forKey: "isFinished")
    lock.withLock {
      executing = false
      finished = true
    }
    didChangeValue(forKey: "isExecuting")
    didChangeValue(forKey: "isFinished")
  }
}

/// An ``AsyncResultOperation`` that takes its input from the result of a dependency.
class ChainedAsyncResultOperation<Input, Success, Failure: Error>: AsyncResultOperation<
  Success, Failure
>, @unchecked Sendable
{
  /// The failure to finish with when no dependency produced an input.
  var missingInputFailure: Failure? { nil }

  final override func main() {
    let input = dependencies.lazy.compactMap {
      ($0 as? AsyncResultOperation<Input, Failure>)?.result
    }.first
    switch input {
    case .success(let value)?: main(with: value)
    case .failure(let failure)?: finish(with: .failure(failure))
    case nil: finish(with: missingInputFailure.map { .failure($0) })
    }
  }

  /// Starts the work with the dependency's value; call `finish(with:)` when it ends.
  func main(with input: Input) {}
}

/// The typed failures of the legacy question API.
enum LegacyAPIError: Error, Equatable, Sendable {
  case notFound
  case cancelled
  case missingInput
}

/// A question as the legacy layer knows it.
struct QuestionRecord: Equatable, Sendable {
  let id: Int
  let title: String
}

/// A legacy callback-based store of questions; the tests answer its lookups.
protocol LegacyQuestionStore: Sendable {
  /// Looks question `id` up.
  func question(id: Int, completion: @escaping @Sendable (QuestionRecord?) -> Void)
}

/// Loads one question: shape 2 in use.
final class LoadQuestionOperation: AsyncResultOperation<QuestionRecord, LegacyAPIError>,
  @unchecked Sendable
{
  let id: Int
  private let store: any LegacyQuestionStore

  init(id: Int, store: any LegacyQuestionStore) {
    self.id = id
    self.store = store
    super.init()
  }

  override var cancellationFailure: LegacyAPIError? { .cancelled }

  override func main() {
    store.question(id: id) { [weak self] record in
      self?.finish(with: record.map { .success($0) } ?? .failure(.notFound))
    }
  }
}

/// Renders the question its dependency loaded: the chained variant in use.
final class RenderQuestionOperation: ChainedAsyncResultOperation<
  QuestionRecord, String, LegacyAPIError
>, @unchecked Sendable
{
  override var missingInputFailure: LegacyAPIError? { .missingInput }

  override func main(with input: QuestionRecord) {
    finish(with: .success("#\(input.id): \(input.title)"))
  }
}
