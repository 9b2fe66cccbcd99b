import OperationCore

/// Where a suspended caller's registration stands, shared by the code that registers it and by
/// whatever may make it leave (the task's cancellation, a deadline): whichever comes second
/// acts. If the registration is recorded first, the leaving side takes its place and leaves;
/// if a leave comes first, the registering side learns why and leaves itself.
///
/// Used for every suspension in this module (awaiting an operation, awaiting idleness), so the
/// race between registering and leaving is solved once.
struct WaiterRegistration<Place: Sendable, Reason: Sendable>: Sendable {
  private enum Stage {
    case registering
    case registered(Place)
    /// A leave came before the registration was recorded.
    case leftEarly(Reason)
    case left
  }

  private let stage = Locked(Stage.registering)

  /// Records where the caller waits; returns the reason to leave at once when a leave came
  /// first.
  func record(_ place: Place) -> Reason? {
    stage.withLock { stage in
      switch stage {
      case .registering:
        stage = .registered(place)
        return nil
      case .leftEarly(let reason):
        stage = .left
        return reason
      case .registered, .left:
        preconditionFailure("a registration is recorded once")
      }
    }
  }

  /// Asks the caller to leave for `reason`; returns its place when the registration was
  /// recorded and nobody made it leave before.
  func leave(_ reason: Reason) -> Place? {
    stage.withLock { stage in
      switch stage {
      case .registering:
        stage = .leftEarly(reason)
        return nil
      case .registered(let place):
        stage = .left
        return place
      case .leftEarly, .left:
        return nil
      }
    }
  }

  /// The caller is done waiting: later leaves do nothing, and the place is released.
  func close() {
    stage.withLock { $0 = .left }
  }
}
