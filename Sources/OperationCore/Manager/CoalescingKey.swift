/// Identifies a piece of work that identical requests may share.
///
/// A key is namespaced by the operation's class and its value type, so two operation types that
/// happen to use equal keys (say, the same URL) never join each other's work. Caller-supplied
/// values of different types are never equal (`1` and `Int64(1)` are two keys).
public struct CoalescingKey: Hashable, Sendable, CustomStringConvertible {
  // One reference: copying a key, which the enqueue path does several times, is one retain.
  @usableFromInline
  let storage: any CoalescingKeyStorage
  /// Computed once, and kept inline so a hash-table probe compares it without a call.
  @usableFromInline
  let hashValueCache: Int

  /// Creates a key for work of `operationType` producing `valueType`, identified by `base`.
  /// Inlinable, so the caller's code is specialised for `base`'s type and builds the key's
  /// storage without looking up its generic metadata at run time.
  @inlinable
  public init<Value>(
    operationType: AnyClass, valueType: Value.Type, base: some Hashable & Sendable
  ) {
    storage = TypedKeyStorage(operationType: operationType, valueType: valueType, base: base)
    var hasher = Hasher()
    hasher.combine(ObjectIdentifier(operationType))
    hasher.combine(ObjectIdentifier(valueType))
    hasher.combine(base)
    hashValueCache = hasher.finalize()
  }

  /// The key under which an operation of `operationType` identified by `base` coalesces: the
  /// one both ``ConcurrentOperation/init(coalescingKey:)`` and a key-first lookup (such as
  /// `run(key:)`) build, so they always agree.
  @inlinable
  public init<Value, Failure>(
    for operationType: ConcurrentOperation<Value, Failure>.Type, base: some Hashable & Sendable
  ) {
    self.init(operationType: operationType, valueType: Value.self, base: base)
  }

  /// The caller-supplied part of the key.
  public var baseValue: any Hashable & Sendable { storage.baseValue }

  /// A short description such as `FetchQuestions[stackoverflow]`.
  public var description: String {
    "\(String(describing: storage.operationClass))[\(storage.baseValue)]"
  }

  /// Two keys are equal when their namespaces and caller-supplied values are equal.
  public static func == (lhs: CoalescingKey, rhs: CoalescingKey) -> Bool {
    lhs.hashValueCache == rhs.hashValueCache
      && (lhs.storage === rhs.storage || lhs.storage.isEqual(to: rhs.storage))
  }

  /// Hashes the namespace and the caller-supplied value.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(hashValueCache)
  }
}

/// What a ``CoalescingKey`` holds, with the caller's value type erased.
@usableFromInline
protocol CoalescingKeyStorage: AnyObject, Sendable {
  var operationClass: AnyClass { get }
  var baseValue: any Hashable & Sendable { get }
  func isEqual(to other: any CoalescingKeyStorage) -> Bool
  /// Whether the caller asked for this work with `key` (of the same type, and equal): the base
  /// itself, or the caller's part of a base that is a key of its own (foreign work's key, whose
  /// base is the caller's key scoped to the operation's class).
  func hasCallerKey(_ key: any Hashable & Sendable) -> Bool
}

/// A key's parts, typed by the caller's value so comparing two keys needs no dynamic cast.
@usableFromInline
final class TypedKeyStorage<Base: Hashable & Sendable>: CoalescingKeyStorage {
  let operationType: ObjectIdentifier
  let valueType: ObjectIdentifier
  @usableFromInline
  let operationClass: AnyClass
  let base: Base

  @usableFromInline
  init<Value>(operationType: AnyClass, valueType: Value.Type, base: Base) {
    self.operationType = ObjectIdentifier(operationType)
    self.valueType = ObjectIdentifier(valueType)
    self.operationClass = operationType
    self.base = base
  }

  @usableFromInline
  var baseValue: any Hashable & Sendable { base }

  @usableFromInline
  func isEqual(to other: any CoalescingKeyStorage) -> Bool {
    // Same storage class means the same `Base`, so the downcast cannot fail.
    guard type(of: other) == type(of: self) else { return false }
    let other = unsafeDowncast(other, to: Self.self)
    return other.operationType == operationType && other.valueType == valueType
      && other.base == base
  }

  @usableFromInline
  func hasCallerKey(_ key: any Hashable & Sendable) -> Bool {
    if (key as? Base) == base { return true }
    return (base as? CoalescingKey)?.storage.hasCallerKey(key) ?? false
  }
}
