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
  ///
  /// The closure runs in a task started when the queue starts the operation, outside any
  /// caller's task: it sees no caller's task-local values, and starts at the priority the
  /// runtime gives a task made outside any task (escalated while it runs when a caller asking
  /// for more joins or is escalated). A closure passed to `OperationQueueManager.run` sees its
  /// caller's.
  @inlinable
  public init(_ body: @escaping @Sendable () async throws -> Value) {
    work = Locked(AsyncWork(body))
    super.init()
    passesPriorityOn = true
  }

  /// Creates an operation that runs `body`, shared by requests with an equal `coalescingKey`.
  ///
  /// The closure runs outside any caller's task, as with ``init(_:)``.
  @inlinable
  public init(
    coalescingKey: some Hashable & Sendable, _ body: @escaping @Sendable () async throws -> Value
  ) {
    work = Locked(AsyncWork(body))
    super.init(coalescingKey: coalescingKey)
    passesPriorityOn = true
  }

  /// Creates an operation whose closure runs in a task made now, in the calling task's
  /// context: it sees that task's task-local values and runs at its priority (or the
  /// operation's queue priority when the queue starts it, if higher). The task waits, holding
  /// no thread, until the queue starts the operation.
  @inlinable
  init(inheritingContext body: @escaping @Sendable () async throws -> Value) {
    work = Locked(AsyncWork(inheritingContext: body))
    super.init()
    passesPriorityOn = true
  }

  /// ``init(inheritingContext:)``, shared by requests with an equal `coalescingKey`.
  @inlinable
  init(
    coalescingKey: some Hashable & Sendable,
    inheritingContext body: @escaping @Sendable () async throws -> Value
  ) {
    work = Locked(AsyncWork(inheritingContext: body))
    super.init(coalescingKey: coalescingKey)
    passesPriorityOn = true
  }

  // A task made in its caller's context for an operation that never started ends here,
  // without running the closure.
  deinit {
    work.withLock { $0.heldGate }?.discard()
  }

  /// False: the slot is held until the closure returns.
  public override var finishesImmediatelyWhenCancelled: Bool { false }

  /// Starts the task that runs the closure (made now, or waiting since the operation was made)
  /// and finishes with the closure's outcome.
  public override func main() {
    switch work.withLock({ $0.start() }) {
    case .makeTask(let run):
      let task = Task { [self] in settle(erased: await run()) }
      if work.withLock({ $0.record(task) }) { task.cancel() }
    case .open(let task, let gate):
      let queued = TaskPriority(queuePriority)
      if queued > gate.madeAt,
        #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
      {
        task.escalatePriority(to: queued)
      }
      gate.open(for: self)
    case .endCancelled:
      settle(erased: .cancelled)  // Cancelled between start and now: nothing ran, release the slot.
    }
  }

  /// Escalates the task running the closure when a caller asking for more joins or is
  /// escalated while it runs (Swift never lowers a task's priority: a caller leaving changes
  /// nothing here). On Apple platforms before the 2025 releases, which cannot escalate a task,
  /// the closure keeps its priority.
  public override func priorityDidChange(
    to priority: Operation.QueuePriority, whileExecuting: Bool
  ) {
    guard whileExecuting else { return }
    guard let task = work.withLock({ $0.runningTask }) else { return }
    if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
      task.escalatePriority(to: TaskPriority(priority))
    }
  }

  /// Cancels the task running the closure; a task waiting since the operation was made ends
  /// without running it.
  public override func operationWasCancelled() {
    let (task, gate) = work.withLock { $0.cancel() }
    task?.cancel()
    gate?.discard()
  }
}

extension AsyncOperation: RunOwner {}
