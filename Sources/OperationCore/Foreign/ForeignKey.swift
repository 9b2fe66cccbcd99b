import Foundation

/// Where foreign work requested with a key sits in a manager's index: the caller's key scoped to
/// the operation's class, or, for work a request builds, to its handler, so that equal keys of
/// two classes (or value types) never share work. `forget(key:)` finds it by the caller's key.
struct ForeignKey: Hashable, Sendable, CustomStringConvertible, CallerKeyHolding {
  let scoped: CoalescingKey

  /// `key` scoped to `operation`'s class, or (nil) to work built around a `Value` handler.
  init<Value: Sendable>(
    _ key: some Hashable & Sendable, of operation: Operation?, value: Value.Type
  ) {
    scoped =
      operation.map { CoalescingKey(operationType: type(of: $0), valueType: Void.self, base: key) }
      ?? CoalescingKey(operationType: BridgeHandler<Value>.self, valueType: Value.self, base: key)
  }

  var description: String { scoped.description }

  func hasCallerKey(_ key: any Hashable & Sendable) -> Bool { scoped.storage.hasCallerKey(key) }
}
