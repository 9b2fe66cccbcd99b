import Dispatch
import OperationCore
import Synchronization

/// Why a suspended caller leaves before its outcome arrives.
@usableFromInline
enum LeaveReason: Sendable {
  /// The task was cancelled.
  case cancellation
  /// The caller's own deadline, of this length, passed.
  case deadline(Duration)
}

/// A registered waiter, seen by whatever makes it leave.
protocol RegisteredWaiter: Sendable {
  /// Leaves for `reason`: removes the waiter and hands its caller the matching outcome,
  /// unless its outcome was handed over already.
  func leave(_ reason: LeaveReason)
}

/// Where one suspended caller meets its outcome. Every suspension in this module goes
/// through one (awaiting an operation, awaiting idleness), so the races of a suspension are
/// solved once:
///
/// - **Outcome against suspension.** The caller registers its waiter *before* it suspends,
///   so the outcome can arrive first. ``deliver(_:)`` and the suspension's continuation meet
///   here: whichever comes second resumes the caller.
/// - **Leaving against leaving.** The task's cancellation and the caller's deadline may both
///   ask the waiter to leave; the first one that finds it recorded takes it.
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

  private let registration = Atomic<UInt8>(0)
  @exclusivity(unchecked) private var waiter: (any RegisteredWaiter)?
  /// The caller's pending deadline in ``CallerDeadlines``, if it has one; written and read by
  /// the caller's task only.
  @exclusivity(unchecked) private var deadlineID: UInt64?

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
  /// the task makes the registered waiter leave with cancellation.
  @inlinable
  @inline(__always)
  func outcome() async -> ErasedOutcome {
    await withTaskCancellationHandler {
      await withCheckedContinuation { attach($0) }
    } onCancel: {
      leave(.cancellation)
    }
    return takeOutcome()
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

  // MARK: Leaving against registration

  /// Records the waiter, before anything can ask it to leave.
  func record(_ waiter: any RegisteredWaiter) {
    self.waiter = waiter
    registration.store(Self.registered, ordering: .releasing)
  }

  /// Starts the caller's deadline, once its waiter is recorded: an entry in the shared
  /// ``CallerDeadlines``, fired on a global queue, so no thread waits for it. The caller takes
  /// it out when it has its outcome (``close()``), so a far deadline keeps nothing after that.
  func arm(deadline: Duration) {
    deadlineID = CallerDeadlines.shared.schedule(after: deadline) {
      self.leave(.deadline(deadline))
    }
  }

  /// Makes the caller leave for `reason`, if its waiter is recorded and nobody made it leave
  /// before.
  @usableFromInline
  func leave(_ reason: LeaveReason) {
    // Only the party that moves the stage away from `registered` owns the waiter: it takes
    // it out, so nothing (a pending deadline, an idle wait's own back-reference) keeps it.
    guard registration.exchange(Self.done, ordering: .acquiringAndReleasing) == Self.registered,
      let waiter
    else { return }
    self.waiter = nil
    waiter.leave(reason)
  }

  /// The caller has its outcome: its deadline is taken out, and a deadline firing meanwhile
  /// does nothing and holds no waiter. (Without a deadline nothing else holds this object, so
  /// there is nothing to close.)
  private func close() {
    guard let deadlineID else { return }
    CallerDeadlines.shared.cancel(deadlineID)
    if registration.exchange(Self.done, ordering: .acquiringAndReleasing) == Self.registered {
      waiter = nil
    }
  }
}
