import Foundation
import OperationCore

extension OperationQueueManager {
  /// Enqueues `operation`, or joins an identical one in flight, and returns its value.
  ///
  /// A new operation gets `priority` as its queue priority (by default the calling task's
  /// priority mapped onto `Operation.QueuePriority`); joining a pending one raises its priority
  /// to `priority` if that is higher, so shared work runs at its most urgent caller's priority.
  ///
  /// Cancelling the calling task resumes this call at once with `CancellationError`, even if
  /// the operation is still pending in a suspended queue. The operation itself is cancelled
  /// only when no other caller (awaiting task or completion handler) still waits for it. A task
  /// that is already cancelled gets `CancellationError` without enqueueing anything. A
  /// `timeout` works the same way: at the deadline this caller leaves with
  /// `OperationTimeoutError` (scope `.caller`) and the shared work goes on for the others.
  /// When every caller has left, `whenAbandoned` decides what happens to the work: cancelled
  /// (the default), run to its end, or kept for a while for a late request to join
  /// (`AbandonmentPolicy`).
  ///
  /// - Parameters:
  ///   - operation: The work. If one with the same `CoalescingKey` is in flight, this one
  ///     is dropped and the call waits for that one. The dropped one never runs and always
  ///     follows that one: it takes that one's outcome and is released with it (reports
  ///     `isFinished`), whoever holds it (something depends on it, say), on every platform.
  ///   - priority: The queue priority this caller asks for; nil uses the task's.
  ///   - timeout: This caller's deadline, counted from the call; nil for none. Distinct from
  ///     the operation's own `ConcurrentOperation.timeout`, which fails every waiter.
  ///   - whenAbandoned: What happens to the work once this caller and every other one have
  ///     left: `.cancel` (the default), `.finish` or `.linger(_:)`.
  /// - Returns: The operation's value.
  /// - Throws: The operation's failure, `CancellationError` when cancelled (the task or the
  ///   operation), or `OperationTimeoutError` when a time limit expired.
  @_disfavoredOverload
  @inlinable
  public nonisolated(nonsending) func perform<Value, Failure>(
    _ operation: consuming ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel
  ) async throws -> Value {
    try await outcome(
      of: operation, priority: priority, timeout: timeout, whenAbandoned: whenAbandoned
    ).value(as: Value.self)
  }

  /// Enqueues `operation`, or joins an identical one in flight, and returns its value, with
  /// typed failures.
  ///
  /// Cancellation, the deadline and abandonment behave as in the untyped
  /// `perform(_:priority:timeout:whenAbandoned:)`, but arrive as
  /// `Failure(cancellation:)` and `Failure(timeout:)`. Swift infers the typed error inside a
  /// function that declares `throws(Failure)` or a `do throws(Failure)` block; in a plain
  /// closure such as `Task { … }` write `do throws(Failure) { … } catch { … }` to keep it.
  ///
  /// - Parameters:
  ///   - operation: The work, coalesced by its key.
  ///   - priority: The queue priority this caller asks for; nil uses the task's.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the work once every caller has left.
  /// - Returns: The operation's value.
  /// - Throws: The operation's typed failure.
  @inlinable
  public nonisolated(nonsending) func perform<Value, Failure: OperationFailure>(
    _ operation: consuming ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel
  ) async throws(Failure) -> Value {
    try await outcome(
      of: operation, priority: priority, timeout: timeout, whenAbandoned: whenAbandoned
    ).value(as: Value.self, failure: Failure.self)
  }

  /// Runs `body` as an operation on this manager's queue and returns its value.
  ///
  /// The closure gets the queue's control: it waits for a free slot, honours suspension,
  /// priorities and `cancelAllOperations()`. Cancelling the calling task (or its `timeout`
  /// passing) leaves the run, cancelling it unless `whenAbandoned` asks to keep it; cancelling
  /// the operation cancels the task running `body`.
  ///
  /// - Parameters:
  ///   - key: Pass nothing (or nil) for a run of its own.
  ///   - priority: The queue priority this caller asks for; nil uses the task's.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the run once the caller has left: `.cancel` (the
  ///     default), `.finish` or `.linger(_:)`.
  ///   - body: The work.
  /// - Returns: What `body` returned.
  /// - Throws: What `body` threw, `CancellationError`, or `OperationTimeoutError`.
  public nonisolated(nonsending) func run<Value: Sendable>(
    key: Never? = nil,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel,
    _ body: consuming @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    try await perform(
      AsyncOperation(consume body), priority: priority, timeout: timeout,
      whenAbandoned: whenAbandoned)
  }

  /// Runs `body` as an operation on this manager's queue, shared by calls with an equal `key`
  /// while it is in flight, and returns its value.
  ///
  /// As ``run(key:priority:timeout:whenAbandoned:_:)-(Never?,_,_,_,_)``, plus coalescing: a
  /// call whose key is in flight joins that run without building an operation, and drops its
  /// own `body` (never run) before it waits. Cancelling the calling task (or its `timeout`
  /// passing) leaves the shared run, cancelling it only when nobody else waits and no caller's
  /// `whenAbandoned` asks to keep it. `forget(key:)` makes the next call with `key` start a
  /// new run.
  ///
  /// - Parameters:
  ///   - key: A coalescing key; nil runs `body` on its own.
  ///   - priority: The queue priority this caller asks for; nil uses the task's.
  ///   - timeout: This caller's deadline, counted from the call; nil for none.
  ///   - whenAbandoned: What happens to the run once every caller has left: `.cancel` (the
  ///     default), `.finish` or `.linger(_:)`.
  ///   - body: The work.
  /// - Returns: What `body` returned.
  /// - Throws: What `body` threw, `CancellationError`, or `OperationTimeoutError`.
  @inlinable
  public nonisolated(nonsending) func run<Value: Sendable, Key: Hashable & Sendable>(
    key: Key?,
    priority: Operation.QueuePriority? = nil,
    timeout: Duration? = nil,
    whenAbandoned: AbandonmentPolicy = .cancel,
    _ body: consuming @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    // One await for both: the waiting task's frame holds only what that await needs.
    let point =
      if let key {
        register(
          key: key, priority: priority, timeout: timeout, whenAbandoned: whenAbandoned,
          consume body)
      } else {
        register(
          AsyncOperation(consume body), priority: priority, timeout: timeout,
          whenAbandoned: whenAbandoned)
      }
    return try await point.outcome().value(as: Value.self)
  }

  /// The registration half of ``run(key:priority:timeout:whenAbandoned:_:)-(Key?,_,_,_,_)``,
  /// synchronous, so the closure ends here for a call that joins: a context the caller
  /// allocated for it is freed before the caller waits, not on the way back when the shared run
  /// resumes everyone. Never inlined, for the reason the operation's registration is not.
  @inlinable
  @inline(never)
  func register<Value: Sendable, Key: Hashable & Sendable>(
    key: Key,
    priority: Operation.QueuePriority?,
    timeout: Duration?,
    whenAbandoned policy: AbandonmentPolicy,
    _ body: consuming @escaping @Sendable () async throws -> Value
  ) -> SuspensionPoint {
    let body = consume body
    // Joining needs only the key: no operation is built for a call that would drop it.
    return SuspensionPoint.register(timeout: timeout, on: { scheduler }) {
      waiter, taskPriority in
      let priority = priority ?? Operation.QueuePriority(taskPriority)
      let admission =
        join(
          CoalescingKey(for: AsyncOperation<Value>.self, base: key),
          as: ConcurrentOperation<Value, any Error>.self, waiter: waiter, priority: priority,
          whenAbandoned: policy)
        ?? admit(
          AsyncOperation(coalescingKey: key, body), waiter: waiter, priority: priority,
          whenAbandoned: policy)
      return admission.waiterID.map {
        (
          admission.operation, $0,
          admission.escalationCanMatter && followsEscalation(of: admission.operation)
        )
      }
    }
  }

  /// Admits `operation` with a waiter for the calling task and waits. The operation is handed
  /// over, not kept: one that joins other work follows it without being kept alive by it, so
  /// a task waiting on shared work does not keep its own dropped request.
  @inlinable
  @inline(__always)
  nonisolated(nonsending) func outcome<Value, Failure>(
    of operation: consuming ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority?,
    timeout: Duration?,
    whenAbandoned policy: AbandonmentPolicy
  ) async -> ErasedOutcome {
    await register(operation, priority: priority, timeout: timeout, whenAbandoned: policy)
      .outcome()
  }

  /// The registration half of ``outcome(of:priority:timeout:whenAbandoned:)``, synchronous, so
  /// nothing it uses stays in the waiting task's frames. Inlinable, so it is specialised for the
  /// caller's operation type and looks up no generic metadata; never inlined, so its closures
  /// and locals are not laid out in the awaiting function's context, which the task keeps for as
  /// long as it waits (a larger context can take the task allocator a second slab per waiter).
  @inlinable
  @inline(never)
  func register<Value, Failure>(
    _ operation: consuming ConcurrentOperation<Value, Failure>,
    priority: Operation.QueuePriority?,
    timeout: Duration?,
    whenAbandoned policy: AbandonmentPolicy
  ) -> SuspensionPoint {
    var request = Optional(consume operation)
    return SuspensionPoint.register(timeout: timeout, on: { scheduler }) {
      waiter, taskPriority in
      guard let operation = request.take() else { preconditionFailure("registered twice") }
      let priority = priority ?? Operation.QueuePriority(taskPriority)
      let admission = admit(operation, waiter: waiter, priority: priority, whenAbandoned: policy)
      return admission.waiterID.map {
        (
          admission.operation, $0,
          admission.escalationCanMatter && followsEscalation(of: admission.operation)
        )
      }
    }
  }

  /// Whether an escalation of a caller waiting for `operation` can change anything: its queue
  /// may make pending work wait (its width is bounded, or it is suspended), or the operation
  /// passes its priority on while it runs (an `AsyncOperation` escalates its closure's task).
  /// On an unbounded queue that is not suspended, pending work waits for no slot, so its
  /// queue priority orders nothing.
  @inlinable
  func followsEscalation<Value, Failure>(
    of operation: ConcurrentOperation<Value, Failure>
  ) -> Bool {
    operation.passesPriorityOn
      || queue.maxConcurrentOperationCount != OperationQueue.defaultMaxConcurrentOperationCount
      || queue.isSuspended
  }
}
