import Foundation

extension Operation.QueuePriority {
  /// The queue priority that matches a task priority: high and user-initiated map to `.high`,
  /// medium to `.normal`, low and utility to `.low`, background to `.veryLow`. A priority
  /// between those goes to `.high` above medium and to `.low` below it.
  ///
  /// The mapping the layer applies to a caller's task priority, for code that admits a request
  /// on a task's behalf where that task does not run (a timer's action passing it to
  /// `OperationQueueManager.admit(_:priority:timeout:whenAbandoned:)`).
  ///
  /// Matched on the raw values, which the ABI fixes: reading `TaskPriority.high` and comparing
  /// resilient values would go through the runtime on every await.
  ///
  /// - Parameter priority: A task's priority.
  public init(_ priority: TaskPriority) {
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
