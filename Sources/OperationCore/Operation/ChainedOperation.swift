import LockedValue

/// An operation whose input is the output of another operation.
///
/// The upstream operation becomes a dependency, so this one starts only after it finishes.
/// Override ``main(input:)`` instead of `main()`. An upstream failure, cancellation or timeout
/// reaches this operation's waiters as such (`isCancelled` turns true for the last two):
/// `main(input:)` is not called and there is no "missing input" case. Enqueued through a
/// manager, it also enqueues an upstream operation that no manager has claimed yet.
///
/// ```swift
/// final class Decode: ChainedOperation<Data, Page, any Error>, @unchecked Sendable {
///   override func main(input: Data) {
///     finish(with: Result { try decoder.decode(Page.self, from: input) })
///   }
/// }
/// let download = Download(url)
/// manager.enqueue(download)
/// manager.enqueue(Decode(upstream: download)) { result in … }
/// ```
open class ChainedOperation<Input: Sendable, Value: Sendable, Failure: Error>:
  ConcurrentOperation<Value, Failure>, @unchecked Sendable
{
  // State lives in `upstream`, guarded by its lock; it is released once the input is taken.
  private let upstream: Locked<ConcurrentOperation<Input, Failure>?>

  /// Creates an operation that runs after `upstream` and receives its value.
  public init(upstream: ConcurrentOperation<Input, Failure>) {
    self.upstream = Locked(upstream)
    super.init()
    addDependency(upstream)
  }

  /// Creates a coalescing operation that runs after `upstream` and receives its value.
  public init(
    upstream: ConcurrentOperation<Input, Failure>, coalescingKey: some Hashable & Sendable
  ) {
    self.upstream = Locked(upstream)
    super.init(coalescingKey: coalescingKey)
    addDependency(upstream)
  }

  // In case it is freed unrun: on swift-corelibs-foundation a dependency would follow its
  // pointer to this one when it finishes (`detachFromEveryDependency`; nothing elsewhere).
  deinit {
    detachFromEveryDependency()
  }

  /// Takes the upstream outcome: its value goes to ``main(input:)``, anything else settles this
  /// operation the same way. Waits (without blocking) if upstream has not settled yet.
  public final override func main() {
    guard let upstream = upstream.withLock({ $0.take() }) else { return }
    let waiter = OperationWaiter(interest: .untilSettled, callbackQueue: nil) { [self] outcome in
      switch outcome.typed(Input.self, Failure.self) {
      case .success(let input): main(input: input)
      case .failure(let failure): settle(.failure(failure))
      case .cancelled: settle(.cancelled)
      case .timedOut(let error): settle(.timedOut(error))
      }
    }
    upstream.addWaiter(waiter)
  }

  /// Enqueues the upstream operation on the same manager if no manager has claimed it yet,
  /// so that a downstream operation never waits for upstream work nobody will run. An upstream
  /// that joins identical work in flight (its key's) is dropped, never to run: this operation
  /// then takes its input from that work instead, and the dropped upstream follows it: it is
  /// released with that work's outcome.
  ///
  /// An upstream you add to an `OperationQueue` yourself, not through a manager, cannot be
  /// told apart from one nobody enqueued, and Foundation traps when an operation is added to a
  /// second queue: enqueue upstream work through a manager (this one or another).
  package override func willEnqueue(on manager: OperationQueueManager) {
    guard let upstream = upstream.withLock({ $0 }), !upstream.isClaimedOrStarted else { return }
    // An upstream that joins work in flight follows it (it takes that work's outcome, then
    // is released) and stays a dependency: corelibs keeps counting a removed dependency that has
    // not finished.
    let working = manager.enqueue(upstream)
    guard working !== upstream else { return }
    // Not in a queue yet, so nothing reads the upstream meanwhile.
    self.upstream.withLock { $0 = working }
  }

  /// Does the work with the upstream value. Override it and call `finish`, as with `main()`.
  open func main(input: Input) {}
}
