import Dispatch
import Foundation
import OperationCore
import Synchronization

/// Where one suspended caller meets its outcome. Every suspension in this module goes
/// through one (awaiting an operation, awaiting idleness), so the races of a suspension are
/// solved once:
///
/// - **Outcome against suspension.** The caller registers its waiter *before* it suspends,
///   so the outcome can arrive first. ``deliver(_:)`` and the suspension's continuation meet
///   here: whichever comes second resumes the caller.
/// - **Leaving against leaving.** The task's cancellation and the caller's deadline may both
///   ask the waiter to leave; the first one that finds it recorded takes it.
/// - **Escalation against leaving.** While the task waits, raising its priority (a more
///   urgent task awaits it, or `escalatePriority(to:)`) raises its waiter's priority, which
///   raises the work's queue priority when no other caller asks for more. Only where that
///   can change something (the registration says): an escalation handler costs a task status
///   record per await. The escalation reads
///   what the waiter waits on under a stage of its own, which a leave waits out.
///
/// One waiting caller is three things: its ``OperationWaiter`` in the list of what it waits on,
/// this point (which holds what it needs to leave: the ``WaiterRemoving`` it waits on and its
/// waiter's identity), and, with a deadline, an entry of the manager's ``Scheduler``.
///
/// The waiter is recorded before anything can ask it to leave: the cancellation handler is
/// installed, and the deadline armed, only afterwards. Registering before suspending also
/// keeps the suspended task's frames small: the task keeps only this object across its
/// suspension, not the registration's closures, which matters when 100,000 tasks wait on one
/// operation. Lock-free, one allocation; each value it stores is written once, before an
/// atomic store or exchange publishes it, and read only after acquiring that.
@usableFromInline
final class SuspensionPoint: @unchecked Sendable {
  // Handoff stages.
  private static var empty: UInt8 { 0 }
  private static var suspended: UInt8 { 1 }
  private static var delivered: UInt8 { 2 }
  // Registration stages.
  private static var registering: UInt8 { 0 }
  private static var registered: UInt8 { 1 }
  private static var done: UInt8 { 2 }
  /// Recorded, and an escalation is reading what the waiter waits on: it gives the stage back
  /// at once.
  private static var escalating: UInt8 { 3 }

  // The atomics order every access to the stored properties below, so the dynamic exclusivity
  // check Swift makes on a class's `var` (a runtime call per access) guards nothing here:
  // `@exclusivity(unchecked)` drops it.
  private let handoff = Atomic<UInt8>(0)
  // The continuation carries nothing: the outcome stays here, so the suspended task's frames
  // hold no copy of it. Checked, as every continuation of the bridge's entry points is (a
  // misuse is reported, never undefined), although the handoff's stages already let exactly
  // one of `deliver` and `attach` resume it, once.
  @exclusivity(unchecked) private var continuation: CheckedContinuation<Void, Never>?
  @exclusivity(unchecked) private var handedOver: ErasedOutcome?

  private let registration = Atomic<UInt8>(registering)
  /// What the waiter waits on, which removes it when it leaves.
  @exclusivity(unchecked) private var waitedOn: (any WaiterRemoving)?
  /// The waiter's identity there.
  @exclusivity(unchecked) private var waiterID: OperationWaiter.ID = 0
  /// The task's priority when its waiter registered (its raw value): an escalation before the
  /// escalation handler is installed shows as a higher one then. Written and read by the
  /// caller's task only.
  @usableFromInline @exclusivity(unchecked) var registeredPriority: UInt8 = 0
  /// Whether an escalation of the waiting task can change anything for what it waits on (see
  /// ``register(timeout:on:_:)-(_,_,(OperationWaiter,TaskPriority)->_)``): only then is the
  /// escalation handler installed. Written and read by the caller's task only.
  @usableFromInline @exclusivity(unchecked) var followsEscalation = true
  /// The caller's pending deadline, if it has one: the scheduler and its entry there; written
  /// and read by the caller's task only.
  @exclusivity(unchecked) private var deadline: (scheduler: Scheduler, entry: UInt64)?

  @usableFromInline
  init() {}

  // MARK: Outcome against suspension

  /// Hands the caller its outcome. Called exactly once (the waiter's owner guarantees it).
  func deliver(_ outcome: ErasedOutcome) {
    handedOver = outcome
    guard handoff.exchange(Self.delivered, ordering: .acquiringAndReleasing) == Self.suspended
    else { return }
    // Resumed where it is stored: copying the continuation out costs a generic copy.
    continuation?.resume()
  }

  /// Suspends the calling task until the outcome is delivered (at once if it was). Cancelling
  /// the task makes the registered waiter leave with cancellation; escalating it raises the
  /// waiter's priority (on Apple platforms from the 2025 releases on: before them, the runtime
  /// has no escalation handler, and the work keeps the priority the caller had when it came).
  /// The escalation handler is installed only when an escalation can change anything.
  @inlinable
  @inline(__always)
  nonisolated(nonsending) func outcome() async -> ErasedOutcome {
    if followsEscalation,
      #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    {
      await withTaskCancellationHandler {
        await withTaskPriorityEscalationHandler {
          catchUpOnEscalation()
          await withCheckedContinuation { attach($0) }
        } onPriorityEscalated: { _, priority in
          escalate(to: priority)
        }
      } onCancel: {
        leave(with: .cancelled)
      }
    } else {
      await withTaskCancellationHandler {
        await withCheckedContinuation { attach($0) }
      } onCancel: {
        leave(with: .cancelled)
      }
    }
    return takeOutcome()
  }

  /// Passes on an escalation of the task between its registration and the escalation handler,
  /// which nothing told the waiter. Out of line: its locals stay off the waiting task's frame.
  @usableFromInline
  @inline(never)
  func catchUpOnEscalation() {
    let priority = Task.currentPriority
    if priority.rawValue > registeredPriority { escalate(to: priority) }
  }

  /// Parks the suspended caller's continuation, or resumes it at once if the outcome came
  /// first.
  @usableFromInline
  func attach(_ continuation: CheckedContinuation<Void, Never>) {
    self.continuation = continuation
    let (suspended, _) = handoff.compareExchange(
      expected: Self.empty, desired: Self.suspended, ordering: .acquiringAndReleasing)
    if !suspended { continuation.resume() }
  }

  /// Moves the outcome out, once the caller has resumed (called once); closes the registration.
  @usableFromInline
  func takeOutcome() -> ErasedOutcome {
    close()
    // Written before the exchange that published `delivered`. Acquiring that stage here orders
    // the read after the write by itself, whichever thread resumed the task (ThreadSanitizer
    // saw no order through the continuation alone).
    guard handoff.load(ordering: .acquiring) == Self.delivered, let outcome = handedOver.take()
    else { preconditionFailure("resumed without an outcome") }
    return outcome
  }

  // MARK: Registration

  /// Registers the calling task as a waiter through `register`, synchronously, and returns
  /// where the task waits for its outcome. `register` must add the waiter (or deliver to it at
  /// once) and return what it waits on and its identity there, if it is still there. A task
  /// that is already cancelled registers nothing and gets cancellation. With a `timeout`, the
  /// caller's deadline is an entry of `scheduler()`'s (read only then).
  @usableFromInline
  static func register(
    timeout: Duration?, on scheduler: () -> Scheduler,
    _ register: (OperationWaiter) -> (any WaiterRemoving, OperationWaiter.ID)?
  ) -> SuspensionPoint {
    Self.register(timeout: timeout, on: scheduler) { waiter, _ in
      register(waiter).map { ($0.0, $0.1, true) }
    }
  }

  /// ``register(timeout:on:_:)``, handing `register` the task's priority as well (read once:
  /// the waiter asks for it, and an escalation before the waiter waits shows against it).
  /// `register` also says whether an escalation of the task can change anything for the work
  /// (its queue may make it wait, or it passes its priority on while it runs): if not, the
  /// caller waits without an escalation handler, which costs a task status record per await.
  @usableFromInline
  static func register(
    timeout: Duration?, on scheduler: () -> Scheduler,
    _ register: (OperationWaiter, TaskPriority) -> (
      any WaiterRemoving, OperationWaiter.ID, followsEscalation: Bool
    )?
  ) -> SuspensionPoint {
    let point = SuspensionPoint()
    if Task.isCancelled {
      point.deliver(.cancelled)
      return point
    }
    let taskPriority = Task.currentPriority
    point.registeredPriority = taskPriority.rawValue
    let waiter = OperationWaiter(interest: .untilLeaving, callbackQueue: nil) {
      [point] outcome in point.deliver(outcome)
    }
    guard let (waitedOn, id, followsEscalation) = register(waiter, taskPriority) else {
      return point
    }
    point.followsEscalation = followsEscalation
    point.record(waitedOn, id: id)
    if let timeout { point.arm(deadline: timeout, on: scheduler()) }
    return point
  }

  // MARK: Leaving against registration

  /// Records the waiter, before anything can ask it to leave.
  private func record(_ waitedOn: any WaiterRemoving, id: OperationWaiter.ID) {
    self.waitedOn = waitedOn
    waiterID = id
    registration.store(Self.registered, ordering: .releasing)
  }

  /// Starts the caller's deadline, once its waiter is recorded: an entry of `scheduler`, fired
  /// on its clock, so no thread waits for it. The caller takes it out when it has its outcome
  /// (``close()``), so a far deadline keeps nothing after that.
  private func arm(deadline timeout: Duration, on scheduler: Scheduler) {
    let entry = scheduler.schedule(after: timeout) {
      self.leave(with: .timedOut(OperationTimeoutError(timeout: timeout, scope: .caller)))
    }
    deadline = (scheduler, entry)
  }

  /// Makes the caller leave with `outcome` (cancellation, or its deadline's timeout), if its
  /// waiter is recorded and nobody made it leave before.
  @usableFromInline
  func leave(with outcome: ErasedOutcome) {
    // Only the party that moves the stage away from `registered` owns the waiter: it takes
    // it out, so nothing (a pending deadline, a manager's idle waiter) keeps it.
    guard takeRegistration(), let waitedOn else { return }
    self.waitedOn = nil
    waitedOn.removeWaiter(waiterID, resumingWith: outcome)
  }

  /// Moves the stage from `registered` to `done`; true if this call did. An escalation reading
  /// meanwhile is waited out: it holds its stage for two reads.
  private func takeRegistration() -> Bool {
    while true {
      let (exchanged, stage) = registration.compareExchange(
        expected: Self.registered, desired: Self.done, ordering: .acquiringAndReleasing)
      if exchanged { return true }
      if stage != Self.escalating { return false }
    }
  }

  /// The waiting task was escalated to `priority`: its waiter asks for that from now on, if it
  /// is still recorded. Called by the runtime while the task waits, never after it resumed.
  @usableFromInline
  func escalate(to priority: TaskPriority) {
    let (exchanged, _) = registration.compareExchange(
      expected: Self.registered, desired: Self.escalating, ordering: .acquiring)
    guard exchanged else { return }
    // Held for these two reads only: the strong reference keeps what the waiter waits on, so
    // a leave may take it out as soon as the stage is back.
    let waitedOn = self.waitedOn
    let id = waiterID
    registration.store(Self.registered, ordering: .releasing)
    waitedOn?.escalateWaiter(id, to: Operation.QueuePriority(priority))
  }

  /// The caller has its outcome: its deadline is taken out, and a deadline firing meanwhile
  /// does nothing and holds nothing it waited on. (Without a deadline nothing else holds this
  /// object, so there is nothing to close.)
  private func close() {
    guard let (scheduler, entry) = deadline else { return }
    scheduler.cancel(entry)
    if takeRegistration() { waitedOn = nil }
  }
}
