import Synchronization

/// Why a suspended caller leaves before its outcome arrives.
enum LeaveReason: Sendable {
  /// The task was cancelled.
  case cancellation
  /// The caller's own deadline, of this length, passed.
  case deadline(Duration)
}

/// A registered waiter, seen by whatever makes it leave.
protocol RegisteredWaiter: Sendable {
  /// Leaves for `reason`: removes the waiter and resumes it, unless it was resumed already.
  func leave(_ reason: LeaveReason)
}

/// Where a suspended caller's registration stands, shared by the code that registers it and by
/// whatever may make it leave (the task's cancellation, a deadline): whichever comes second
/// acts. If the registration is recorded first, the leaving side takes the waiter and makes it
/// leave; if the task's cancellation comes first, the registering side learns it and leaves
/// itself. (A deadline is armed only once the registration is recorded.)
///
/// Every suspension in this module uses it (awaiting an operation, awaiting idleness), so that
/// race is solved once. Lock-free, one allocation: the registering side writes the waiter,
/// then publishes it with a releasing exchange; a leave reads it only after acquiring that.
final class WaiterRegistration: @unchecked Sendable {
  private static let registering: UInt8 = 0
  private static let registered: UInt8 = 1
  /// Left, or closed: nothing more to do.
  private static let done: UInt8 = 2

  // `waiter` is written once before `stage` becomes `registered`, and read or cleared only by
  // the one party that moves `stage` away from `registered`.
  private let stage = Atomic<UInt8>(WaiterRegistration.registering)
  private var waiter: (any RegisteredWaiter)?

  init() {}

  /// Records the waiter; returns false when the task was cancelled first (the caller then
  /// makes the waiter leave with cancellation itself).
  func record(_ waiter: any RegisteredWaiter) -> Bool {
    self.waiter = waiter
    return stage.compareExchange(
      expected: Self.registering, desired: Self.registered, ordering: .acquiringAndReleasing
    ).exchanged
  }

  /// Makes the caller leave for `reason`, if it is registered and nobody made it leave before.
  func leave(_ reason: LeaveReason) {
    guard stage.exchange(Self.done, ordering: .acquiringAndReleasing) == Self.registered,
      let waiter
    else { return }
    waiter.leave(reason)
  }

  /// The caller is done waiting: later leaves do nothing, and the waiter is released.
  func close() {
    if stage.exchange(Self.done, ordering: .acquiringAndReleasing) == Self.registered {
      waiter = nil
    }
  }
}
