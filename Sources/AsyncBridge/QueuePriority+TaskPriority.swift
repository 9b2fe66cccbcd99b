import Foundation

extension Operation.QueuePriority {
  /// The queue priority that matches a task priority: high and user-initiated map to `.high`,
  /// medium to `.normal`, low and utility to `.low`, background to `.veryLow`.
  @usableFromInline
  init(_ priority: TaskPriority) {
    switch priority {
    case .high: self = .high
    case .medium: self = .normal
    case .low: self = .low
    case .background: self = .veryLow
    default: self = priority > .medium ? .high : .low
    }
  }
}
