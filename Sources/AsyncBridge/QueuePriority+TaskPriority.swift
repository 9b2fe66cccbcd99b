import Foundation

extension Operation.QueuePriority {
  /// The queue priority that matches a task priority: high and user-initiated map to `.high`,
  /// medium to `.normal`, low and utility to `.low`, background to `.veryLow`. A priority
  /// between those goes to `.high` above medium and to `.low` below it.
  ///
  /// Matched on the raw values, which the ABI fixes: reading `TaskPriority.high` and comparing
  /// resilient values would go through the runtime on every await.
  @usableFromInline
  init(_ priority: TaskPriority) {
    switch priority.rawValue {
    case Self.backgroundTask: self = .veryLow
    case Self.lowTask: self = .low
    case Self.mediumTask: self = .normal
    case Self.highTask: self = .high
    case let other: self = other > Self.mediumTask ? .high : .low
    }
  }

  // The raw values of the named task priorities (`userInitiated` is `high`, `utility` is `low`).
  private static var backgroundTask: UInt8 { 9 }
  private static var lowTask: UInt8 { 17 }
  private static var mediumTask: UInt8 { 21 }
  private static var highTask: UInt8 { 25 }
}
