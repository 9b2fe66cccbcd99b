/// What a bounded wait of this kit throws when what it waited for did not happen in time: the
/// test fails with a description of what was missing instead of hanging.
///
/// A bound is real time in which the wait kept watching. A stretch in which the wait's own task
/// did not run (the process stopped in a debugger, or starved by a machine running many tests
/// on few cores) is charged only briefly, so such a pause does not fail a test whose work was
/// paused along with it.
public struct WaitExpired: Error, CustomStringConvertible {
  /// What the wait waited for, in words.
  public let condition: String
  /// The time the wait was bounded by.
  public let bound: Duration

  /// Creates the error for a wait for `condition` bounded by `bound`.
  public init(condition: String, bound: Duration) {
    self.condition = condition
    self.bound = bound
  }

  /// Says what did not happen and how long was waited.
  public var description: String { "\(condition) did not happen within \(bound)" }
}
