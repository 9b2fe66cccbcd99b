import Dispatch
import LockedValue
import OperationCore

/// The one manual test operation: it ends as its ``Ending`` says, counts `main()` calls and
/// cancellation hooks, and opens gates for each, so tests wait for them instead of sleeping.
open class TestOperation<Failure: Error>: ConcurrentOperation<Int, Failure>, @unchecked Sendable {
  /// How the operation ends once its queue starts it.
  public enum Ending: Sendable, Equatable {
    /// With this value, inside `main()`, on the queue's thread.
    case returning(Int)
    /// With this value, from a global queue a few microseconds after `main()`.
    case returningSoon(Int, microseconds: Int)
    /// Only when the test calls ``release(_:)`` or ``fail(_:)`` (or cancels it): a jammed
    /// operation until then.
    case whenReleased
  }

  // Counters and gates are thread-safe; `executingInMain` is guarded by its lock; the rest is
  // immutable.
  /// How the operation ends.
  public let ending: Ending
  /// The base of its coalescing key, if it has one.
  public let key: Int?
  /// Counts `main()` calls.
  public let mainCalls = AsyncCounter()
  /// Counts ``operationWasCancelled()`` calls.
  public let cancelHookCalls = AsyncCounter()
  /// Opened when `main()` runs.
  public let started = Gate()
  /// Opened when ``operationWasCancelled()`` runs.
  public let cancelHookCalled = Gate()
  private let executingInMain = Locked(false)
  private let keepsSlotWhenCancelled: Bool
  private let onMain: (@Sendable (TestOperation<Failure>) -> Void)?

  /// Creates an operation named `Manual[key]` (or `Manual`).
  ///
  /// - Parameters:
  ///   - key: A coalescing key, or nil for an operation that never coalesces.
  ///   - ending: How it ends once started.
  ///   - keepsSlotWhenCancelled: Returned by ``finishesImmediatelyWhenCancelled``, negated.
  ///   - onMain: Called at the start of `main()`, before it finishes or opens `started`.
  public init(
    key: Int? = nil, ending: Ending = .whenReleased, keepsSlotWhenCancelled: Bool = false,
    onMain: (@Sendable (TestOperation<Failure>) -> Void)? = nil
  ) {
    self.key = key
    self.ending = ending
    self.keepsSlotWhenCancelled = keepsSlotWhenCancelled
    self.onMain = onMain
    if let key {
      super.init(coalescingKey: key)
    } else {
      super.init()
    }
    name = key.map { "Manual[\($0)]" } ?? "Manual"
  }

  /// The negation of `keepsSlotWhenCancelled`.
  open override var finishesImmediatelyWhenCancelled: Bool { !keepsSlotWhenCancelled }

  /// How many times `main()` ran.
  public var mainCallCount: Int { mainCalls.value }
  /// How many times ``operationWasCancelled()`` ran.
  public var cancelHookCallCount: Int { cancelHookCalls.value }
  /// What `isExecuting` said from inside `main()`.
  public var wasExecutingInMain: Bool { executingInMain.withLock { $0 } }

  /// Counts the call, runs `onMain`, opens `started`, then ends as planned.
  open override func main() {
    let executing = isExecuting
    executingInMain.withLock { $0 = executing }
    mainCalls.increment()
    onMain?(self)
    started.open()
    switch ending {
    case .returning(let value):
      release(value)
    case .returningSoon(let value, let microseconds):
      DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(microseconds)) {
        [self] in release(value)
      }
    case .whenReleased:
      break
    }
  }

  /// Counts the call and opens `cancelHookCalled`.
  open override func operationWasCancelled() {
    cancelHookCalls.increment()
    cancelHookCalled.open()
  }

  /// Finishes the work with `value`.
  public func release(_ value: Int) { finish(returning: value) }

  /// Finishes the work with `failure`.
  public func fail(_ failure: Failure) { finish(throwing: failure) }
}

/// The manual test operation with untyped failures.
public typealias ManualOperation = TestOperation<any Error>
