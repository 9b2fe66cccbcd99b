import Foundation

/// Where foreign work requested with a key sits in a manager's coalescing index: under the
/// operation's class and the caller's key, so two operation classes that use equal keys never
/// share work. Work whose operation a request builds (`operationType` nil: the class is not known
/// before it is built) sits under the key alone, in the adapter's namespace of its value type.
struct ForeignKey: Hashable, @unchecked Sendable, CustomStringConvertible {
  // Immutable; `base` wraps a key that is `Sendable` (the initializer takes only such keys).
  let operationType: Operation.Type?
  let base: AnyHashable

  /// `key`, scoped to `operationType` (nil: to work a request builds).
  init(_ key: some Hashable & Sendable, of operationType: Operation.Type?) {
    self.operationType = operationType
    base = AnyHashable(key)
  }

  var description: String { operationType.map { "\($0): \(base)" } ?? "\(base)" }

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.operationType == rhs.operationType && lhs.base == rhs.base
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(operationType.map(ObjectIdentifier.init))
    hasher.combine(base)
  }
}
