import Foundation

extension TaskPriority {
  /// The task priority that matches a queue priority, the converse of
  /// `Operation.QueuePriority.init(_:)`: very high and high map to `.high`, normal to
  /// `.medium`, low to `.low`, very low to `.background`.
  init(_ priority: Operation.QueuePriority) {
    switch priority {
    case .veryHigh, .high: self = .high
    case .normal: self = .medium
    case .low: self = .low
    case .veryLow: self = .background
    @unknown default: self = priority.rawValue > 0 ? .high : .low
    }
  }
}
