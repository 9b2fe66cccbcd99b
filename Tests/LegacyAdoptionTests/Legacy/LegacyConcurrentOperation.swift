import Foundation

// Legacy shape 0: the classic generic concurrent operation. A state enum whose raw values are
// the KVO keys, an `NSRecursiveLock` around it, subclasses that take their completion handler
// at init, and a `finish(result:)` that sets the state to finished and *then* calls that
// handler: directly, or later on a `callBackQueue`. Its `cancel()` finishes the operation
// whether or not it started. Written as such layers usually are, so the tests prove the bridge
// copes with it untouched.

/// The errors of the legacy layer.
enum LegacyFetchError: Error, Equatable, Sendable {
  case cancelled
  case notFound
}

/// A generic concurrent operation base class: subclasses override `main()` and call
/// `finish(result:)`.
class LegacyConcurrentOperation<Value>: Operation, @unchecked Sendable {
  enum State: String {
    case ready = "isReady"
    case executing = "isExecuting"
    case finished = "isFinished"
  }

  private let lock = NSRecursiveLock()
  private var rawState = State.ready
  private let completionHandler: ((Result<Value, any Error>) -> Void)?
  private let callBackQueue: DispatchQueue?

  init(
    callBackQueue: DispatchQueue? = nil,
    completionHandler: ((Result<Value, any Error>) -> Void)?
  ) {
    self.callBackQueue = callBackQueue
    self.completionHandler = completionHandler
    super.init()
  }

  var state: State {
    get {
      lock.lock()
      defer { lock.unlock() }
      return rawState
    }
    set {
      let oldValue = state
      willChangeValue(forKey: oldValue.rawValue)
      willChangeValue(forKey: newValue.rawValue)
      lock.lock()
      rawState = newValue
      lock.unlock()
      didChangeValue(forKey: oldValue.rawValue)
      didChangeValue(forKey: newValue.rawValue)
    }
  }

  override var isAsynchronous: Bool { true }
  override var isReady: Bool { super.isReady && state == .ready }
  override var isExecuting: Bool { state == .executing }
  override var isFinished: Bool { state == .finished }

  override func start() {
    guard !isCancelled else {
      finish(result: .failure(LegacyFetchError.cancelled))
      return
    }
    state = .executing
    main()
  }

  /// The usual shortcut: finished at once, started or not.
  override func cancel() {
    super.cancel()
    finish(result: .failure(LegacyFetchError.cancelled))
  }

  /// Sets the state to finished, then calls the completion handler (on `callBackQueue` if it
  /// has one). Later calls do nothing.
  func finish(result: Result<Value, any Error>) {
    lock.lock()
    guard rawState != .finished else {
      lock.unlock()
      return
    }
    lock.unlock()
    state = .finished
    guard let completionHandler else { return }
    if let callBackQueue {
      // Code of this age predates strict concurrency checking: it hands the call over as is.
      nonisolated(unsafe) let call = { completionHandler(result) }
      callBackQueue.async { call() }
    } else {
      completionHandler(result)
    }
  }
}

/// A user as the legacy layer knows it.
struct LegacyUser: Equatable, Sendable {
  let id: Int
  let name: String
}

/// A legacy callback-based user service; the tests answer its requests.
final class ManualUserService: @unchecked Sendable {
  // `pending` and `requests` are guarded by `lock`.
  private let lock = NSLock()
  private var pending: [(Result<LegacyUser, any Error>) -> Void] = []
  private var requests = 0

  /// How many requests arrived.
  var requestCount: Int { lock.withLock { requests } }

  func fetchUser(id: Int, completion: @escaping (Result<LegacyUser, any Error>) -> Void) {
    lock.withLock {
      pending.append(completion)
      requests += 1
    }
  }

  /// Answers every pending request with `result`; returns how many it answered.
  @discardableResult
  func answer(_ result: Result<LegacyUser, any Error>) -> Int {
    let completions = lock.withLock {
      defer { pending = [] }
      return pending
    }
    for completion in completions { completion(result) }
    return completions.count
  }
}

/// Fetches one user: shape 0 in use, its handler given at init.
final class UserFetchOperation: LegacyConcurrentOperation<LegacyUser>, @unchecked Sendable {
  let userID: Int
  private let service: ManualUserService

  init(
    userID: Int, service: ManualUserService, callBackQueue: DispatchQueue? = nil,
    completionHandler: ((Result<LegacyUser, any Error>) -> Void)?
  ) {
    self.userID = userID
    self.service = service
    super.init(callBackQueue: callBackQueue, completionHandler: completionHandler)
  }

  override func main() {
    service.fetchUser(id: userID) { [weak self] result in self?.finish(result: result) }
  }
}
