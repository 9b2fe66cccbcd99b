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
    let gate = work.withLock { work -> RunStartGate? in
      if case .held(_, let gate, _) = work { return gate }
      return nil
    }
    gate?.discard()
  }

  /// False: the slot is held until the closure returns.
  public override var finishesImmediatelyWhenCancelled: Bool { false }

  /// Starts the task that runs the closure (made now, or waiting since the operation was made)
  /// and finishes with the closure's outcome.
  public override func main() {
    let start = work.withLock { work -> AsyncWork in
      let start = work
      switch work {
      case .idle: work = .starting
      case .held(let task, _, _): work = .running(task)
      case .running, .cancelled, .starting: break
      }
      return start
    }
    switch start {
    case .idle(let run):
      let task = Task { [self] in settle(erased: await run()) }
      let cancelledMeanwhile = work.withLock { work in
        if case .cancelled = work { return true }
        work = .running(task)
        return false
      }
      if cancelledMeanwhile { task.cancel() }
    case .held(let task, let gate, let madeAt):
      let queued = TaskPriority(queuePriority)
      if queued > madeAt,
        #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
      {
        task.escalatePriority(to: queued)
      }
      gate.open(for: self)
    case .running, .cancelled, .starting:
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
    let task = work.withLock { work -> Task<Void, Never>? in
      if case .running(let task) = work { return task }
      return nil
    }
    guard let task else { return }
    if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
      task.escalatePriority(to: TaskPriority(priority))
    }
  }

  /// Cancels the task running the closure; a task waiting since the operation was made ends
  /// without running it.
  public override func operationWasCancelled() {
    let (task, gate) = work.withLock { work -> (Task<Void, Never>?, RunStartGate?) in
      defer { work = .cancelled }
      switch work {
      case .running(let task): return (task, nil)
      case .held(let task, let gate, _): return (task, gate)
      case .idle, .cancelled, .starting: return (nil, nil)
      }
    }
    task?.cancel()
    gate?.discard()
  }
}

extension AsyncOperation: RunOwner {}
