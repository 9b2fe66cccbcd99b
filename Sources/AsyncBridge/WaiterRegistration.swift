import Dispatch
import OperationCore
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
/// leave; if a leave comes first, the registering side learns why and leaves itself.
///
/// Every suspension in this module uses it (awaiting an operation, awaiting idleness), so that
/// race is solved once. Lock-free, one allocation: the registering side writes the waiter,
/// then publishes it with a releasing exchange; a leave reads it only after acquiring that.
final class WaiterRegistration: @unchecked Sendable {
  private static let registering: UInt8 = 0
  private static let registered: UInt8 = 1
  private static let cancelledEarly: UInt8 = 2
  private static let expiredEarly: UInt8 = 3
  /// Left after the registration, or closed: nothing more to do.
  private static let done: UInt8 = 4

  // `waiter` is written once before `stage` becomes `registered`, and read or cleared only by
  // the one party that moves `stage` away from `registered`. `deadline` is written once, by
  // `arm`, before anything else can see the registration.
  private let stage = Atomic<UInt8>(WaiterRegistration.registering)
  private var waiter: (any RegisteredWaiter)?
  private var deadline: Duration?

  init() {}

  /// Starts the caller's deadline, once the waiter is recorded: a Dispatch timer on a global
  /// queue, so no thread waits for it. Until it fires it holds this registration (one small
  /// object), and the operation only while the caller still waits.
  func arm(deadline: Duration) {
    self.deadline = deadline
    DispatchQueue.global().asyncAfter(deadline: .now() + deadline.timeInterval) {
      self.leave(.deadline(deadline))
    }
  }

  /// Records the waiter; returns why to leave at once when a leave came first.
  func record(_ waiter: any RegisteredWaiter) -> LeaveReason? {
    self.waiter = waiter
    let (exchanged, original) = stage.compareExchange(
      expected: Self.registering, desired: Self.registered, ordering: .acquiringAndReleasing)
    guard !exchanged else { return nil }
    self.waiter = nil
    if original == Self.expiredEarly, let deadline { return .deadline(deadline) }
    return .cancellation
  }

  /// Makes the caller leave for `reason`, if it is registered and nobody made it leave before.
  func leave(_ reason: LeaveReason) {
    let early =
      switch reason {
      case .cancellation: Self.cancelledEarly
      case .deadline: Self.expiredEarly
      }
    var original = stage.load(ordering: .acquiring)
    while true {
      let next = original == Self.registering ? early : Self.done
      let (exchanged, current) = stage.compareExchange(
        expected: original, desired: next, ordering: .acquiringAndReleasing)
      if exchanged { break }
      original = current
    }
    guard original == Self.registered, let waiter else { return }
    waiter.leave(reason)
  }

  /// The caller is done waiting: later leaves do nothing, and the waiter is released.
  func close() {
    if stage.exchange(Self.done, ordering: .acquiringAndReleasing) == Self.registered {
      waiter = nil
    }
  }
}
