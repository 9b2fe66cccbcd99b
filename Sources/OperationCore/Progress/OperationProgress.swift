/// How far an operation's work has come: units completed and, when known, the total.
///
/// Every caller of coalesced work sees the same value: the operation reports it once (see
/// ``ConcurrentOperation/reportProgress(completed:total:)``) and each observing caller is
/// handed it. A networking operation counts bytes; any operation may count
/// what suits it (items, pages, steps).
public struct OperationProgress: Sendable, Hashable {
  /// The units done so far; never below zero.
  public let completedUnitCount: Int64
  /// The units the work will take, when known; nil while it is not.
  public let totalUnitCount: Int64?

  /// Creates a value. A negative `completed` counts as zero; a negative `total` as unknown.
  ///
  /// - Parameters:
  ///   - completed: The units done so far.
  ///   - total: The units the work will take, or nil when unknown.
  public init(completed: Int64, total: Int64?) {
    completedUnitCount = max(0, completed)
    totalUnitCount = total.flatMap { $0 < 0 ? nil : $0 }
  }

  /// The share done, from 0 to 1, when the total is known; nil otherwise. A total of zero
  /// counts as done; units past the total count as done too (a body longer than announced).
  public var fractionCompleted: Double? {
    guard let total = totalUnitCount else { return nil }
    guard total > 0, completedUnitCount < total else { return 1 }
    return Double(completedUnitCount) / Double(total)
  }

  /// Whether `self` is a step forward from `previous`: different, with no fewer units done,
  /// and, if `previous` had a known share, a known share no smaller. Progress never goes
  /// backwards, so a report that is not a step forward is dropped.
  func isStep(after previous: OperationProgress) -> Bool {
    guard self != previous, completedUnitCount >= previous.completedUnitCount else {
      return false
    }
    guard let before = previous.fractionCompleted else { return true }
    guard let now = fractionCompleted else { return false }
    return now >= before
  }
}
