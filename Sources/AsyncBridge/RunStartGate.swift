import LockedValue
import OperationCore

/// What a run's task hands its closure's outcome to: the operation the queue started.
@usableFromInline
protocol RunOwner: AnyObject, Sendable {
  /// Ends the operation with the closure's outcome. Only the first call counts.
  func settle(erased outcome: ErasedOutcome)
}

/// Where a task made in its caller's context waits, holding no thread, until the queue starts
/// its operation: opened with the operation (the task runs its closure and settles it), or
/// discarded (the operation was cancelled or freed before it started: the task ends without
/// running its closure).
///
/// The task holds the gate and the operation's work holds it too; the gate holds the operation
/// only from its start until the task takes it, so an operation that never starts is freed.
/// Its continuation is resumed after the lock is let go, by whichever side arrives second.
@usableFromInline
struct RunStartGate: Sendable {
  /// Where the gate is.
  enum Stage: Sendable {
    /// Neither the task nor the operation's verdict has arrived.
    case waiting
    /// The task waits here for the verdict.
    case parked(CheckedContinuation<(any RunOwner)?, Never>)
    /// The verdict came first: the task takes it when it arrives (nil: discarded).
    case decided((any RunOwner)?)
    /// The task has its verdict.
    case passed
  }

  /// What the arriving side does once the lock is let go.
  enum Action {
    /// Nothing: the other side acts when it arrives, or already did.
    case none
    /// Resumes the waiting task with the verdict.
    case resume(CheckedContinuation<(any RunOwner)?, Never>, (any RunOwner)?)
  }

  private let stage = Locked(Stage.waiting)
  /// The priority of the task the gate was made for, when it was made: the queue's start
  /// escalates it only to a higher priority.
  let madeAt: TaskPriority

  @usableFromInline
  init(madeAt: TaskPriority) {
    self.madeAt = madeAt
  }

  /// The operation to settle once the queue starts it, or nil if it never will.
  @usableFromInline
  func wait() async -> (any RunOwner)? {
    // A verdict already given is taken without a continuation.
    if case .some(let owner) = stage.withLock({ $0.takeVerdict() }) { return owner }
    return await withCheckedContinuation { continuation in
      perform(stage.withLock { $0.park(continuation) })
    }
  }

  /// Lets the task run its closure for `owner`, which the queue has started.
  func open(for owner: any RunOwner) {
    perform(stage.withLock { $0.decide(owner) })
  }

  /// Lets the task end without running its closure.
  func discard() {
    perform(stage.withLock { $0.decide(nil) })
  }

  private func perform(_ action: Action) {
    switch action {
    case .none: break
    case .resume(let continuation, let owner): continuation.resume(returning: owner)
    }
  }
}

extension RunStartGate.Stage {
  /// The task arrives to wait.
  mutating func park(
    _ continuation: CheckedContinuation<(any RunOwner)?, Never>
  ) -> RunStartGate.Action {
    switch self {
    case .waiting:
      self = .parked(continuation)
      return .none
    case .decided(let owner):
      self = .passed
      return .resume(continuation, owner)
    case .parked, .passed:
      return .none  // The task waits once: never reached.
    }
  }

  /// The task arrives and takes the verdict if one was given (`.some`); `.none` if it must wait.
  mutating func takeVerdict() -> (any RunOwner)?? {
    switch self {
    case .decided(let owner):
      self = .passed
      return .some(owner)
    case .waiting, .parked, .passed:
      return .none
    }
  }

  /// The verdict arrives: the operation to settle, or nil. Only the first verdict counts.
  mutating func decide(_ owner: (any RunOwner)?) -> RunStartGate.Action {
    switch self {
    case .waiting:
      self = .decided(owner)
      return .none
    case .parked(let continuation):
      self = .passed
      return .resume(continuation, owner)
    case .decided, .passed:
      return .none
    }
  }
}
