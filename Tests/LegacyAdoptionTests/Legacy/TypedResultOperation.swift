import Foundation
import LockedValue
import OperationCore

// Legacy shape 4: a widely copied generic "async result operation" family. Its base class makes
// every cancellation carry a typed error: `cancel()` traps unless a subclass overrides it, and
// callers use `cancel(with:)`. Subclasses nest their own `Error` type, and a chained variant reads
// its input from its dependencies. Written the way such families usually are (a KVO state enum
// behind a lock), so the tests prove the bridge copes with them untouched.

/// An asynchronous operation that always ends with a typed `Result`.
class TypedResultOperation<Success, Failure: Error>: Operation, @unchecked Sendable {
  private enum State {
    case ready, executing, finished
  }

  // `state` and `storedResult` live under `lock`.
  private let lock = NSLock()
  private var state = State.ready
  private var storedResult: Result<Success, Failure>?

  override var isAsynchronous: Bool { true }
  override var isExecuting: Bool { lock.withLock { state == .executing } }
  override var isFinished: Bool { lock.withLock { state == .finished } }

  /// The result, once the operation has finished.
  var result: Result<Success, Failure>? { lock.withLock { storedResult } }

  override func start() {
    guard !isCancelled else {
      finish()
      return
    }
    willChangeValue(forKey: "isExecuting")
    lock.withLock { state = .executing }
    didChangeValue(forKey: "isExecuting")
    main()
  }

  /// The family's rule: every cancellation carries a typed error.
  override func cancel() {
    fatalError("Make use of cancel(with:) instead to ensure a result")
  }

  /// Cancels the operation with `error` as its result.
  func cancel(with error: Failure) {
    lock.withLock { if storedResult == nil { storedResult = .failure(error) } }
    super.cancel()
    if isExecuting { finish() }
  }

  /// Stores `result` (unless one is stored) and finishes.
  final func finish(with result: Result<Success, Failure>) {
    lock.withLock { if storedResult == nil { storedResult = result } }
    finish()
  }

  private func finish() {
    let wasExecuting = lock.withLock { () -> Bool? in
      guard state != .finished else { return nil }
      return state == .executing
    }
    guard let wasExecuting else { return }
    if wasExecuting { willChangeValue(forKey: "isExecuting") }
    willChangeValue(forKey: "isFinished")
    lock.withLock { state = .finished }
    didChangeValue(forKey: "isFinished")
    if wasExecuting { didChangeValue(forKey: "isExecuting") }
  }
}

/// A ``TypedResultOperation`` that takes its input from the result of a dependency.
class ChainedTypedResultOperation<Input, Success, Failure: Error>: TypedResultOperation<
  Success, Failure
>, @unchecked Sendable
{
  /// The failure to finish with when no dependency produced an input.
  var missingInputFailure: Failure { fatalError("subclasses say which failure") }

  final override func main() {
    let input = dependencies.lazy.compactMap {
      ($0 as? TypedResultOperation<Input, Failure>)?.result
    }.first
    switch input {
    case .success(let value)?: main(with: value)
    case .failure(let failure)?: finish(with: .failure(failure))
    case nil: finish(with: .failure(missingInputFailure))
    }
  }

  /// Starts the work with the dependency's value; call `finish(with:)` when it ends.
  func main(with input: Input) {}
}

/// A legacy service that follows a short URL with a `HEAD` request; the tests answer it.
final class ManualUnfurlService: Sendable {
  private let pending = Locked<[@Sendable (URL?) -> Void]>([])
  private let count = Locked(0)

  /// How many `HEAD` requests were sent.
  var requestCount: Int { count.withLock { $0 } }

  /// Sends a `HEAD` request for `url`; `completion` gets where it leads (nil: nowhere).
  func head(_ url: URL, completion: @escaping @Sendable (URL?) -> Void) {
    pending.withLock { $0.append(completion) }
    count.withLock { $0 += 1 }
  }

  /// Answers every request sent so far with `target`.
  func answer(_ target: URL?) {
    let completions = pending.withLock { pending in
      defer { pending = [] }
      return pending
    }
    for completion in completions { completion(target) }
  }
}

/// Follows a short URL to where it leads: the family in use, with the usual nested `Error`.
final class UnfurlURLOperation: TypedResultOperation<URL, UnfurlURLOperation.Error>,
  @unchecked Sendable
{
  enum Error: Swift.Error, Equatable {
    case noTarget, cancelled
  }

  /// How many instances were made, process-wide: what a builder builds shows here.
  static let made = Locked(0)

  let shortURL: URL
  private let service: ManualUnfurlService

  init(shortURL: URL, service: ManualUnfurlService) {
    self.shortURL = shortURL
    self.service = service
    super.init()
    Self.made.withLock { $0 += 1 }
  }

  override func main() {
    service.head(shortURL) { [weak self] target in
      self?.finish(with: target.map { .success($0) } ?? .failure(.noTarget))
    }
  }
}

/// An ``UnfurlURLOperation`` whose `cancel()` follows the family's rule by itself: the safe form
/// for work the bridge may cancel.
final class CancellableUnfurlURLOperation: TypedResultOperation<URL, UnfurlURLOperation.Error>,
  @unchecked Sendable
{
  let shortURL: URL
  private let service: ManualUnfurlService
  /// Counts the calls of `cancel()`, if given.
  private let cancelCalls: Locked<Int>?

  init(shortURL: URL, service: ManualUnfurlService, cancelCalls: Locked<Int>? = nil) {
    self.shortURL = shortURL
    self.service = service
    self.cancelCalls = cancelCalls
    super.init()
  }

  override func cancel() {
    cancelCalls?.withLock { $0 += 1 }
    cancel(with: .cancelled)
  }

  override func main() {
    service.head(shortURL) { [weak self] target in
      self?.finish(with: target.map { .success($0) } ?? .failure(.noTarget))
    }
  }
}

/// Reads the host of the URL its dependency unfurled: the chained variant in use.
final class UnfurledHostOperation: ChainedTypedResultOperation<
  URL, String, UnfurlURLOperation.Error
>, @unchecked Sendable
{
  override var missingInputFailure: UnfurlURLOperation.Error { .noTarget }

  override func main(with input: URL) {
    finish(with: input.host.map { .success($0) } ?? .failure(.noTarget))
  }
}
