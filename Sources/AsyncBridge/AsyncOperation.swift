import Foundation
import LockedValue
import OperationCore

/// An operation that runs an `async` closure, so async work gets a queue's concurrency limit,
/// priorities, dependencies, suspension, cancel-all and coalescing.
///
/// The operation occupies its queue slot until the closure returns, even after cancellation:
/// cancelling the operation cancels the task running the closure and waiters get
/// `CancellationError` at once, but the next operation starts only when the closure has
/// stopped. A `ConcurrentOperation.timeout` is the exception: it frees the slot at once, as
/// it exists to unjam a queue whose work does not stop. The closure's value or error is
/// delivered exactly once; a `CancellationError` it throws is reported as cancellation.
public final class AsyncOperation<Value: Sendable>: ConcurrentOperation<Value, any Error>,
  @unchecked Sendable
{
  // State lives in `work`, guarded by its lock.
  @usableFromInline
  let work: Locked<AsyncWork>

  /// Creates an operation that runs `body` when the queue starts it.
  @inlinable
  public init(_ body: @escaping @Sendable () async throws -> Value) {
    work = Locked(AsyncWork(body))
    super.init()
    passesPriorityOn = true
  }

  /// Creates an operation that runs `body`, shared by requests with an equal `coalescingKey`.
  @inlinable
  public init(
    coalescingKey: some Hashable & Sendable, _ body: @escaping @Sendable () async throws -> Value
  ) {
    work = Locked(AsyncWork(body))
    super.init(coalescingKey: coalescingKey)
    passesPriorityOn = true
  }

  /// False: the slot is held until the closure returns.
  public override var finishesImmediatelyWhenCancelled: Bool { false }

  /// Starts a task that runs the closure and finishes with its outcome.
  public override func main() {
    let run = work.withLock { work -> (@Sendable () async -> ErasedOutcome)? in
      guard case .idle(let run) = work else { return nil }
      work = .starting
      return run
    }
    guard let run else {
      settle(erased: .cancelled)  // Cancelled between start and now: nothing ran, release the slot.
      return
    }
    let task = Task { [self] in settle(erased: await run()) }
    let cancelledMeanwhile = work.withLock { work in
      if case .cancelled = work { return true }
      work = .running(task)
      return false
    }
    if cancelledMeanwhile { task.cancel() }
  }

  /// Escalates the task running the closure when a caller asking for more joins or is
  /// escalated while it runs (Swift never lowers a task's priority: a caller leaving changes
  /// nothing here). On Apple platforms before the 2025 releases, which cannot escalate a task,
  /// the closure keeps its priority.
  public override func priorityDidChange(
    to priority: Operation.QueuePriority, whileExecuting: Bool
  ) {
    guard whileExecuting else { return }
    let task = work.withLock { work -> Task<Void, Never>? in
      if case .running(let task) = work { return task }
      return nil
    }
    guard let task else { return }
    if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
      task.escalatePriority(to: TaskPriority(priority))
    }
  }

  /// Cancels the task running the closure.
  public override func operationWasCancelled() {
    let task = work.withLock { work -> Task<Void, Never>? in
      defer { work = .cancelled }
      if case .running(let task) = work { return task }
      return nil
    }
    task?.cancel()
  }
}
