/// Where foreign work requested with a key sits in a manager's index: the caller's key scoped to
/// the operation's class (built work: its handler's, so its value type), so that equal keys of two
/// classes never share work. `forget(key:)` finds it by the caller's key.
struct ForeignKey: Hashable, Sendable, CustomStringConvertible, CallerKeyHolding {
  let scoped: CoalescingKey

  init(_ key: some Hashable & Sendable, scope: AnyClass) {
    scoped = CoalescingKey(operationType: scope, valueType: Void.self, base: key)
  }

  var description: String { scoped.description }

  func hasCallerKey(_ key: any Hashable & Sendable) -> Bool { scoped.storage.hasCallerKey(key) }
}
