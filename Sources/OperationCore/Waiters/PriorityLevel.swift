import Foundation

/// A caller's queue priority as one of the five levels an `OperationQueue` orders by, or none
/// when the caller stated no priority. One byte, so a waiter entry carries its caller's
/// priority without growing.
///
/// Read from an `Operation.QueuePriority` the way swift-corelibs-foundation stores one (a raw
/// value between the named ones goes to the level its setter picks), so a level decided here
/// is the level the queue orders the operation by.
@usableFromInline
package enum PriorityLevel: UInt8, Comparable, Sendable {
  /// No stated priority: the caller counts for nothing in the operation's priority.
  case none
  /// The levels of `Operation.QueuePriority`'s named values, lowest first.
  case veryLow, low, normal, high, veryHigh

  /// The level of `priority` (nil: ``none``).
  @inlinable
  package init(_ priority: Operation.QueuePriority?) {
    guard let raw = priority?.rawValue else {
      self = .none
      return
    }
    switch raw {
    case 8...: self = .veryHigh
    case 4..<8: self = .high
    case -3..<4: self = .normal
    case -7 ... -4: self = .low
    default: self = .veryLow
    }
  }

  /// The queue priority of this level; nil for ``none``.
  package var queuePriority: Operation.QueuePriority? {
    switch self {
    case .none: nil
    case .veryLow: .veryLow
    case .low: .low
    case .normal: .normal
    case .high: .high
    case .veryHigh: .veryHigh
    }
  }

  /// Whether `lhs` is the lower level.
  @inlinable
  package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
