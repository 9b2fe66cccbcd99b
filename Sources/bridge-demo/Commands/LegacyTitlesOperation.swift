import Foundation
import StackExchange

/// The kind of operation a code base already has: a hand-rolled concurrent `Operation` that
/// takes its completion handler at init and calls it once it has reported finished. The tour
/// awaits it without changing it, handing it the manager's completion handler.
final class LegacyTitlesOperation: Operation, @unchecked Sendable {
  // State lives in the two fields below, guarded by `lock`; the rest is constant.
  private let questions: QuestionsDataManager
  private let query: QuestionsQuery
  private let completionHandler: (Result<[String], any Error>) -> Void
  private let lock = NSLock()
  private var executing = false
  private var finished = false

  init(
    questions: QuestionsDataManager, query: QuestionsQuery,
    completionHandler: @escaping (Result<[String], any Error>) -> Void
  ) {
    self.questions = questions
    self.query = query
    self.completionHandler = completionHandler
    super.init()
  }

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

  /// Reports finished, then calls the completion handler.
  private func finish(with result: Result<[String], any Error>) {
    willChangeValue(forKey: "isExecuting")
    willChangeValue(forKey: "isFinished")
    lock.withLock {
      executing = false
      finished = true
    }
    didChangeValue(forKey: "isExecuting")
    didChangeValue(forKey: "isFinished")
    completionHandler(result)
  }
}
