extension Duration {
  /// The duration in seconds, for Dispatch deadlines. Divided, not read from `components`,
  /// which traps for a duration past `Int64.max` seconds (`.seconds(Int64.max) + .seconds(1)`,
  /// or a retry delay rounded up to 2⁶³ s through `Double`).
  package var timeInterval: Double {
    self / .seconds(1)
  }

  /// A hundred years: the longest wait or timeout the layer schedules. As good as forever, and
  /// far from where the platform's conversions of longer durations trap.
  package static let century = Duration.seconds(100 * 365 * 24 * 3600)
}
