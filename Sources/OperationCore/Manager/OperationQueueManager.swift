import Foundation
import LockedValue
import Synchronization

/// Schedules ``ConcurrentOperation``s on an `OperationQueue`, coalescing identical requests.
///
/// The manager wraps a queue (it does not subclass one) and keeps its own index of in-flight
/// operations by ``CoalescingKey``, so finding work to join is O(1) and never reads
/// `queue.operations`. Create as many managers as you need policies (a user-initiated one and a
/// background one, say); ``shared`` is only a convenience.
///
/// ```swift
/// let manager = OperationQueueManager(name: "images", maxConcurrentOperationCount: 4)
/// manager.enqueue(FetchImage(url)) { result in … }
/// manager.enqueue(FetchImage(url)) { result in … }  // joins the first: one download
/// ```
public final class OperationQueueManager: @unchecked Sendable {
  // State lives in `state`, guarded by its lock; `queue` and `events` are thread-safe.
  struct State {
    var inFlight: [CoalescingKey: Operation] = [:]
    var idleWaiters: [OperationWaiter.ID: OperationWaiter] = [:]
    var nextIdleWaiterID: UInt64 = 0
  }

  let state = Locked(State())

  /// Operations enqueued through this manager and not finished yet. An atomic, so enqueueing
  /// an operation without a key and finishing one take no manager-wide lock. Idle waiters
  /// still register under `state`'s lock; see ``whenIdle(_:)``.
  let outstanding = Atomic<Int>(0)

  /// Completion handlers given with a callback queue that have not returned yet: the manager
  /// is idle only once they have too. (One without a callback queue returns before its
  /// operation finishes.)
  let pendingCallbacks = Atomic<Int>(0)

  /// How many ``cancelAllOperations()`` calls have begun. An admission reads it before
  /// claiming an operation and again once the operation is in the queue: if a sweep began in
  /// between, it may have missed the operation, so the admission cancels it itself.
  let cancelAllGeneration = Atomic<UInt64>(0)

  /// The queue operations run on. Use the manager's methods to add work so coalescing and
  /// idle tracking see it; the queue itself is exposed for settings the manager does not wrap.
  public let queue: OperationQueue

  /// Fires the timers of the work this manager admits on the manager's clock (the Glossary's
  /// *manager's clock* entry lists them).
  @usableFromInline
  package let scheduler: Scheduler

  /// Lifecycle events of this manager's operations.
  package let events = OperationEventHub()

  private let stallThresholdStorage = Locked<Duration?>(nil)

  /// Whether ``stallThreshold`` is set, so that starting an operation takes no lock when it is
  /// not (the usual case): a manager-wide lock taken on every start is written by every
  /// worker thread.
  let hasStallThreshold = Atomic<Bool>(false)

  /// Suspension as callers asked for it, and the suspension decided for the queue.
  ///
  /// Decided under the lock, written to the queue after it: on Apple platforms the queue's
  /// `isSuspended` setter sends key-value notifications, and an observer may read
  /// ``isSuspended`` or call ``cancelAllOperations()``, which take this lock.
  private struct Suspension {
    /// How many cancel-all sweeps are running.
    var sweeps = 0
    /// What the queue's suspension must be when the last sweep ends.
    var suspendedAfterSweeps = false
    /// The newest suspension decided for the queue.
    var decided = Decision(version: 0, suspended: false)
    /// How many decisions are not yet known to be in the queue: while any is, the queue may
    /// still hold an older one, and `decided` is the suspension it ends with.
    var unwritten = 0

    /// Decides the queue's suspension; the caller writes it once the lock is unlocked.
    mutating func decide(_ suspended: Bool) -> Decision {
      decided = Decision(version: decided.version &+ 1, suspended: suspended)
      unwritten += 1
      return decided
    }

    /// `decision` is written to the queue: nil if it is still the newest (it stays there),
    /// else the newest, which the writer writes in turn.
    mutating func wrote(_ decision: Decision) -> Decision? {
      guard decided.version == decision.version else { return decided }
      unwritten -= 1
      return nil
    }
  }

  /// A suspension decided for the queue, numbered in the order of the decisions.
  private struct Decision {
    var version: UInt64
    var suspended: Bool
  }

  private let suspension = Locked(Suspension())

  /// A manager shared by code that has no reason to own one. Prefer injecting a manager.
  public static let shared = OperationQueueManager(name: "OperationBridge.shared")

  /// Creates a manager over an existing queue.
  ///
  /// - Parameters:
  ///   - queue: The queue to schedule on. Operations added to it directly (not through this
  ///     manager) still run, but are neither coalesced nor counted by ``isIdle``.
  ///   - clock: The clock every timer of the work this manager admits runs on (the
  ///     <doc:Glossary>'s *manager's clock* entry lists them). The continuous clock by
  ///     default; a test passes a `TestClock` (`OperationBridgeTesting`) and advances it by
  ///     hand. Any other clock is read, and waited for in real time.
  public init(queue: OperationQueue, clock: some Clock<Duration> = ContinuousClock()) {
    self.queue = queue
    scheduler = .on(clock)
  }

  // Event streams end when their manager goes: nothing would publish to them again.
  deinit {
    events.finish()
  }

  /// Creates a manager with a new queue.
  ///
  /// - Parameters:
  ///   - name: The queue's name, for debugging.
  ///   - maxConcurrentOperationCount: How many operations may execute at once (see
  ///     ``maxConcurrentOperationCount``).
  ///   - qualityOfService: The default quality of service of the queue.
  ///   - clock: The clock every timer of the work this manager admits runs on (see
  ///     ``init(queue:clock:)``); the continuous clock by default.
  public convenience init(
    name: String? = nil,
    maxConcurrentOperationCount: Int = OperationQueue.defaultMaxConcurrentOperationCount,
    qualityOfService: QualityOfService = .default,
    clock: some Clock<Duration> = ContinuousClock()
  ) {
    let queue = OperationQueue()
    queue.name = name
    queue.maxConcurrentOperationCount = Self.width(maxConcurrentOperationCount)
    queue.qualityOfService = qualityOfService
    self.init(queue: queue, clock: clock)
  }

  /// `count` as a queue width: a negative one is read as
  /// `OperationQueue.defaultMaxConcurrentOperationCount` (swift-corelibs-foundation traps on any
  /// negative width but that one).
  private static func width(_ count: Int) -> Int {
    count < 0 ? OperationQueue.defaultMaxConcurrentOperationCount : count
  }

  // MARK: Queue control

  /// How many operations may execute at once: `OperationQueue.defaultMaxConcurrentOperationCount`
  /// (the default) lets the platform decide, 0 runs nothing until raised, and any other negative
  /// value is read as the default.
  public var maxConcurrentOperationCount: Int {
    get { queue.maxConcurrentOperationCount }
    set { queue.maxConcurrentOperationCount = Self.width(newValue) }
  }

  /// Whether the queue is suspended: pending operations do not start until it resumes.
  /// Waiters of cancelled operations are resumed even while it is suspended.
  public var isSuspended: Bool {
    get {
      let decided = suspension.withLock { suspension -> Bool? in
        if suspension.sweeps > 0 { return suspension.suspendedAfterSweeps }
        return suspension.unwritten > 0 ? suspension.decided.suspended : nil
      }
      return decided ?? queue.isSuspended
    }
    set {
      let decision = suspension.withLock { suspension -> Decision? in
        guard suspension.sweeps == 0 else {
          suspension.suspendedAfterSweeps = newValue
          return nil
        }
        return suspension.decide(newValue)
      }
      if let decision { write(decision) }
    }
  }

  /// Writes a suspension decided under `suspension`'s lock to the queue, with no lock held.
  ///
  /// Decisions made in one order may be written in another. After each write the newest
  /// decision is read again, and one made meanwhile is written in turn: the last write is
  /// always the newest decision's, whichever thread makes it.
  private func write(_ decision: Decision) {
    var decision = decision
    while true {
      queue.isSuspended = decision.suspended
      guard let newer = suspension.withLock({ $0.wrote(decision) }) else { return }
      decision = newer
    }
  }

  /// The default quality of service for operations that do not set their own.
  public var qualityOfService: QualityOfService {
    get { queue.qualityOfService }
    set { queue.qualityOfService = newValue }
  }

  /// Cancels every operation in the queue, and every operation this manager admitted before
  /// the call. Their waiters receive cancellation at once; pending operations finish without
  /// running when the queue starts them (at once unless it is suspended).
  ///
  /// An operation whose admission races this call (it was being added to the queue while the
  /// sweep ran) is cancelled by its admission, once it is in the queue: so every operation
  /// whose `enqueued` event was published before this call ends cancelled (or had settled).
  ///
  /// The queue is held suspended during the sweep: `OperationQueue` cancels in queue order, so
  /// otherwise each executing operation that finishes on cancellation would free a slot for a
  /// pending one to start before the sweep reached it. A suspension or resumption requested
  /// through ``isSuspended`` meanwhile takes effect when the sweep ends.
  public func cancelAllOperations() {
    cancelAllGeneration.add(1, ordering: .sequentiallyConsistent)
    // The queue's suspension is read outside the lock, then trusted only if no decision was
    // made since and none is unwritten; otherwise the newest decision is what the queue holds
    // once its writers are done.
    let before = suspension.withLock { $0.decided.version }
    let observed = queue.isSuspended
    let hold = suspension.withLock { suspension in
      if suspension.sweeps == 0 {
        let current = suspension.unwritten == 0 && suspension.decided.version == before
        suspension.suspendedAfterSweeps = current ? observed : suspension.decided.suspended
      }
      suspension.sweeps += 1
      return suspension.decide(true)
    }
    write(hold)
    queue.cancelAllOperations()  // Runs waiters' callbacks: outside any lock.
    let restore = suspension.withLock { suspension -> Decision? in
      suspension.sweeps -= 1
      return suspension.sweeps == 0 ? suspension.decide(suspension.suspendedAfterSweeps) : nil
    }
    if let restore { write(restore) }
  }

  /// How many operations enqueued through this manager have not finished yet. O(1).
  public var outstandingOperationCount: Int { outstanding.load(ordering: .sequentiallyConsistent) }

  /// Whether every operation enqueued through this manager has finished, and every completion
  /// handler given to it has returned (one called on a callback queue may still wait there
  /// after its operation finished).
  public var isIdle: Bool {
    outstandingOperationCount == 0 && pendingCallbacks.load(ordering: .sequentiallyConsistent) == 0
  }

  /// If set, an operation executing for longer than this is reported with a `stalled` event, once:
  /// the sign of a subclass that never calls `finish`. Pair it with a
  /// ``ConcurrentOperation/timeout`` to also free the queue slot.
  public var stallThreshold: Duration? {
    get {
      // Read on every start: no lock unless a threshold was ever set.
      guard hasStallThreshold.load(ordering: .relaxed) else { return nil }
      return stallThresholdStorage.withLock { $0 }
    }
    set {
      stallThresholdStorage.withLock {
        $0 = newValue
        hasStallThreshold.store(newValue != nil, ordering: .relaxed)
      }
    }
  }

  /// The in-flight operation for `key`, if one is pending or executing. O(1).
  public func inFlightOperation(for key: CoalescingKey) -> Operation? {
    state.withLock { $0.inFlight[key] }
  }

  /// The in-flight operation of `type` coalescing under `key`, if one is pending or executing.
  /// O(1).
  ///
  /// ```swift
  /// let running = manager.inFlightOperation(FetchAvatar.self, key: 7)
  /// ```
  ///
  /// - Parameters:
  ///   - type: The operation's class, as passed to its `init(coalescingKey:)`.
  ///   - key: The caller-supplied part of its key.
  /// - Returns: The operation, or nil when none of that class and key is in flight.
  public func inFlightOperation<Value, Failure, Work: ConcurrentOperation<Value, Failure>>(
    _ type: Work.Type, key: some Hashable & Sendable
  ) -> Work? {
    inFlightOperation(for: CoalescingKey(for: type, base: key)) as? Work
  }

  /// Hands `waiter` ``reachedIdle`` once the manager is idle (``isIdle``: at once, returning
  /// nil, if it is already), on the thread that finished the last operation. The returned
  /// identity makes it leave through ``removeWaiter(_:resumingWith:)``.
  package func whenIdle(_ waiter: OperationWaiter) -> OperationWaiter.ID? {
    let id = state.withLock { state -> OperationWaiter.ID? in
      // Under the lock, so a finish that reaches zero meanwhile finds this waiter registered.
      if isIdle { return nil }
      let id = state.nextIdleWaiterID
      state.nextIdleWaiterID += 1
      state.idleWaiters[id] = waiter
      return id
    }
    if id == nil { waiter.resume(with: Self.reachedIdle) }
    return id
  }

  /// How many idle waiters wait: a test knows from it that a `waitUntilIdle()` caller is
  /// registered, and so that cancelling it now makes it leave through its removal.
  package var idleWaiterCount: Int { state.withLock { $0.idleWaiters.count } }

  /// What an idle waiter is handed once the manager is idle.
  package static let reachedIdle = ErasedOutcome.success(ValueBox(()))
}

extension OperationQueueManager: WaiterRemoving {
  /// Makes an idle waiter leave: removes it and hands it `outcome`; false when the manager had
  /// already taken it to hand it ``reachedIdle``.
  @discardableResult
  @usableFromInline
  package func removeWaiter(_ id: OperationWaiter.ID, resumingWith outcome: ErasedOutcome) -> Bool {
    guard let waiter = state.withLock({ $0.idleWaiters.removeValue(forKey: id) }) else {
      return false
    }
    waiter.resume(with: outcome)
    return true
  }

  /// Nothing: an idle wait has no priority of its own, and the work it waits for has its own
  /// callers.
  @usableFromInline
  package func escalateWaiter(_ id: OperationWaiter.ID, to priority: Operation.QueuePriority) {}
}
