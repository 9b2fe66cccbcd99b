import Foundation

// Legacy shape 1: the home-grown concurrent base class most code bases carry, with a `Result`
// completion. Written the way such classes usually are (string-keyed KVO state, a lock around
// it, and a `cancel()` that finishes the operation whether or not it started), so the tests
// prove the bridge copes with them untouched.

/// A concurrent operation base class: subclasses override `main()` and call `finish()`.
class AsynchronousOperation: Operation, @unchecked Sendable {
  private enum State: String {
    case ready = "isReady"
    case executing = "isExecuting"
    case finished = "isFinished"
  }

  private let stateLock = NSLock()
  private var rawState = State.ready

  private var state: State {
    get { stateLock.withLock { rawState } }
    set {
      let oldValue = state
      willChangeValue(forKey: oldValue.rawValue)
      willChangeValue(forKey: newValue.rawValue)
      stateLock.withLock { rawState = newValue }
      didChangeValue(forKey: oldValue.rawValue)
      didChangeValue(forKey: newValue.rawValue)
    }
  }

  override var isAsynchronous: Bool { true }
  override var isReady: Bool { super.isReady && state == .ready }
  override var isExecuting: Bool { state == .executing }
  override var isFinished: Bool { state == .finished }

  override func start() {
    if isCancelled {
      finish()
      return
    }
    state = .executing
    main()
  }

  /// Marks the operation finished; later calls do nothing.
  func finish() {
    let alreadyFinished = stateLock.withLock { rawState == .finished }
    if !alreadyFinished { state = .finished }
  }

  /// The usual shortcut: a cancelled operation is finished at once, started or not. On
  /// swift-corelibs-foundation this hangs the queue the operation sits in when it is pending.
  override func cancel() {
    super.cancel()
    finish()
  }
}

/// An asynchronous operation that ends with a `Result` and calls a completion handler with it.
class ResultOperation<Success>: AsynchronousOperation, @unchecked Sendable {
  private let resultLock = NSLock()
  private var storedResult: Result<Success, any Error>?

  /// Called with the result just before the operation finishes.
  var completionHandler: ((Result<Success, any Error>) -> Void)?

  /// The result, once the operation has finished.
  var result: Result<Success, any Error>? { resultLock.withLock { storedResult } }

  /// Stores `result`, calls the completion handler, and finishes.
  func finish(with result: Result<Success, any Error>) {
    resultLock.withLock { storedResult = result }
    completionHandler?(result)
    finish()
  }
}

/// A legacy callback-based service the operations call; the tests answer its requests.
protocol LegacyQuestionService: Sendable {
  /// Fetches the titles of the latest questions on `site`.
  func fetchTitles(
    site: String, completion: @escaping @Sendable (Result<[String], any Error>) -> Void)
}

/// Fetches question titles through a ``LegacyQuestionService``: shape 1 in use.
final class FetchTitlesOperation: ResultOperation<[String]>, @unchecked Sendable {
  let site: String
  private let service: any LegacyQuestionService

  init(site: String, service: any LegacyQuestionService) {
    self.site = site
    self.service = service
    super.init()
  }

  override func main() {
    service.fetchTitles(site: site) { [weak self] result in
      self?.finish(with: result)
    }
  }
}
