import Foundation

/// Where foreign work requested with a key sits in a manager's coalescing index: under the
/// operation's class and the caller's key, so two operation classes that use equal keys never
/// share work.
struct ForeignKey<Base: Hashable & Sendable>: Hashable, Sendable, CustomStringConvertible {
  let operationType: Operation.Type
  let base: Base

  init(operation: Operation, base: Base) {
    operationType = type(of: operation)
    self.base = base
  }

  var description: String { "\(operationType): \(base)" }

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.operationType == rhs.operationType && lhs.base == rhs.base
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(operationType))
    hasher.combine(base)
  }
}
