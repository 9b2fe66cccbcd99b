import OperationCore

extension ManagerClock {
  /// An instant of a manager's clock.
  ///
  /// Instants of one manager's clock compare and subtract as any clock's do. Those of managers
  /// on different clocks mean nothing to each other: each clock counts from its own origin.
  public struct Instant: InstantProtocol {
    /// The type of the time between two instants.
    public typealias Duration = Swift.Duration

    /// The scheduler's reading.
    let reading: ClockInstant

    init(reading: ClockInstant) {
      self.reading = reading
    }

    /// The instant `duration` after this one (before it, for a negative duration).
    public func advanced(by duration: Duration) -> Instant {
      Instant(reading: reading + duration)
    }

    /// The time from this instant to `other`, negative when `other` comes first.
    public func duration(to other: Instant) -> Duration {
      other.reading - reading
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.reading < rhs.reading
    }
  }
}
