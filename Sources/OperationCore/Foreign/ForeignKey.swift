import Foundation

/// Where foreign work sits in a manager's coalescing index: under the operation's class and the
/// caller's key, so two legacy classes that use equal keys never share work.
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

/// Where foreign work handed over without a key sits in a manager's coalescing index: under the
/// instance, so handing the same operation over twice (say, to a completion handler and to an
/// awaiting task) runs it once. The host keeps the instance alive while it is indexed, so its
/// identity cannot be reused meanwhile.
struct ForeignInstanceKey: Hashable, Sendable, CustomStringConvertible {
  let instance: ObjectIdentifier
  let operationType: Operation.Type

  init(operation: Operation) {
    instance = ObjectIdentifier(operation)
    operationType = type(of: operation)
  }

  var description: String { "\(operationType) instance" }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.instance == rhs.instance }

  func hash(into hasher: inout Hasher) { hasher.combine(instance) }
}
