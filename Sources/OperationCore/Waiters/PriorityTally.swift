/// The priorities of an operation's callers, counted by level, so the highest among those still
/// waiting is known at once however many callers come, leave or are escalated: each change
/// costs O(1), and cancelling every one of n callers costs O(n) in all.
///
/// A reference, made only once a second caller arrives: an operation with one caller (most
/// of them) reads that caller's priority from its entry, and its waiter list stays as small as
/// one without priorities, so moving it costs no more. Its list never copies it while the work
/// is open (the lifecycle moves the list in and out), so one list owns it.
final class PriorityTally: @unchecked Sendable {
  // Guarded by the lock of the operation whose waiter list owns it.
  // Callers per level, ``PriorityLevel/veryLow`` to ``PriorityLevel/veryHigh``.
  private var veryLow: UInt32 = 0
  private var low: UInt32 = 0
  private var normal: UInt32 = 0
  private var high: UInt32 = 0
  private var veryHigh: UInt32 = 0

  init() {}

  /// The highest level among the counted callers; ``PriorityLevel/none`` when none stated one.
  var highest: PriorityLevel {
    if veryHigh > 0 { return .veryHigh }
    if high > 0 { return .high }
    if normal > 0 { return .normal }
    if low > 0 { return .low }
    if veryLow > 0 { return .veryLow }
    return .none
  }

  /// Counts a caller at `level` (one at ``PriorityLevel/none`` counts for nothing).
  func add(_ level: PriorityLevel) {
    switch level {
    case .none: return
    case .veryLow: veryLow += 1
    case .low: low += 1
    case .normal: normal += 1
    case .high: high += 1
    case .veryHigh: veryHigh += 1
    }
  }

  /// Stops counting a caller at `level`, which was counted.
  func remove(_ level: PriorityLevel) {
    switch level {
    case .none: return
    case .veryLow: veryLow -= 1
    case .low: low -= 1
    case .normal: normal -= 1
    case .high: high -= 1
    case .veryHigh: veryHigh -= 1
    }
  }
}
