/// A point on the continuous clock, stored as the time since a process-wide origin.
///
/// `ContinuousClock.Instant` is not frozen, so a struct that stores one has a layout known only
/// at run time, and every copy or destruction of it (the operation's state, each event's
/// effects) goes through runtime value witnesses. `Duration` is frozen: this type is two words.
struct MonotonicInstant: Sendable {
  /// The origin all instants are measured from: the first use in this process.
  private static let origin = ContinuousClock.now

  /// The time from the origin to this instant.
  private let sinceOrigin: Duration

  /// The current instant.
  static var now: MonotonicInstant {
    MonotonicInstant(sinceOrigin: origin.duration(to: .now))
  }

  /// The time from this instant until now.
  var elapsed: Duration { Self.now.sinceOrigin - sinceOrigin }
}
