/// Identifies a piece of work that identical requests may share.
///
/// A key is namespaced by the operation's class and its value type, so two operation types that
/// happen to use equal keys (say, the same URL) never join each other's work.
public struct CoalescingKey: Hashable, Sendable, CustomStringConvertible {
  private let operationType: ObjectIdentifier
  private let valueType: ObjectIdentifier
  private let base: any Hashable & Sendable
  private let operationClass: AnyClass
  /// Computed once: keys are hashed and compared on every enqueue.
  private let hashValueCache: Int

  /// Creates a key for work of `operationType` producing `valueType`, identified by `base`.
  public init<Value>(
    operationType: AnyClass, valueType: Value.Type, base: some Hashable & Sendable
  ) {
    self.operationType = ObjectIdentifier(operationType)
    self.valueType = ObjectIdentifier(valueType)
    self.base = base
    self.operationClass = operationType
    var hasher = Hasher()
    hasher.combine(self.operationType)
    hasher.combine(self.valueType)
    hasher.combine(AnyHashable(base))
    self.hashValueCache = hasher.finalize()
  }

  /// The caller-supplied part of the key.
  public var baseValue: any Hashable & Sendable { base }

  /// A short description such as `FetchQuestions[stackoverflow]`.
  public var description: String { "\(String(describing: operationClass))[\(base)]" }

  /// Two keys are equal when their namespaces and caller-supplied values are equal.
  public static func == (lhs: CoalescingKey, rhs: CoalescingKey) -> Bool {
    lhs.hashValueCache == rhs.hashValueCache && lhs.operationType == rhs.operationType
      && lhs.valueType == rhs.valueType && AnyHashable(lhs.base) == AnyHashable(rhs.base)
  }

  /// Hashes the namespace and the caller-supplied value.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(hashValueCache)
  }
}
