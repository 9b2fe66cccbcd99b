/// A point on a manager's clock, stored as the time since that clock's origin: the one instant
/// type of the layer's timers (the Glossary's *manager's clock* entry lists them).
///
/// An instant means something only to the ``Scheduler`` whose driver read it: two schedulers
/// on different clocks have different origins. A clock's own `Instant` need not be frozen, so
/// a struct that stores one has a layout known only at run time, and every copy of it goes
/// through runtime value witnesses; `Duration` is frozen, and this type is two words.
package struct ClockInstant: Sendable, Hashable, Comparable {
  /// The time from the clock's origin to this instant.
  package let sinceOrigin: Duration

  /// The instant `sinceOrigin` after the clock's origin.
  package init(sinceOrigin: Duration) {
    self.sinceOrigin = sinceOrigin
  }

  /// The instant `duration` after this one.
  package static func + (instant: ClockInstant, duration: Duration) -> ClockInstant {
    ClockInstant(sinceOrigin: instant.sinceOrigin + duration)
  }

  /// The time from `earlier` to `later` (negative when `later` comes first).
  package static func - (later: ClockInstant, earlier: ClockInstant) -> Duration {
    later.sinceOrigin - earlier.sinceOrigin
  }

  /// Whether `lhs` comes first.
  package static func < (lhs: ClockInstant, rhs: ClockInstant) -> Bool {
    lhs.sinceOrigin < rhs.sinceOrigin
  }
}
