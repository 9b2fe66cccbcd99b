import Foundation
import OperationCore
import StackExchange

/// The kind of operation a code base already has: a hand-rolled concurrent `Operation` with a
/// completion-handler body and a stored result. The tour awaits it without changing it; the
/// extension at the bottom (three lines) adopts `ResultProducingOperation` so its result can be
/// awaited too.
final class LegacyTitlesOperation: Operation, @unchecked Sendable {
  // State lives in the three fields below, guarded by `lock`.
  private let questions: QuestionsDataManager
  private let query: QuestionsQuery
  private let lock = NSLock()
  private var executing = false
  private var finished = false
  private var storedResult: Result<[String], any Error>?

  init(questions: QuestionsDataManager, query: QuestionsQuery) {
    self.questions = questions
    self.query = query
    super.init()
  }

  /// The titles, or why there are none; nil until it finished.
  var result: Result<[String], any Error>? { lock.withLock { storedResult } }

  override var isAsynchronous: Bool { true }
  override var isExecuting: Bool { lock.withLock { executing } }
  override var isFinished: Bool { lock.withLock { finished } }

  override func start() {
    guard !isCancelled else {
      finish(with: .failure(CancellationError()))
      return
    }
    willChangeValue(forKey: "isExecuting")
    lock.withLock { executing = true }
    didChangeValue(forKey: "isExecuting")
    questions.fetchQuestions(query) { [self] page in
      finish(with: page.map { $0.items.map(\.title.decodingHTMLEntities) })
    }
  }

  private func finish(with result: Result<[String], any Error>) {
    willChangeValue(forKey: "isExecuting")
    willChangeValue(forKey: "isFinished")
    lock.withLock {
      storedResult = result
      executing = false
      finished = true
    }
    didChangeValue(forKey: "isExecuting")
    didChangeValue(forKey: "isFinished")
  }
}

extension LegacyTitlesOperation: ResultProducingOperation {
  var outcome: Result<[String], any Error>? { result }
}
