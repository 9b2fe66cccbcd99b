// Foreign work sits in the index under its class and the caller's key: forgetting the caller's
// key finds it through the caller's part, compared as coalescing compares it.
extension ForeignKey: CallerKeyHolding {
  func hasCallerKey(_ key: any Hashable & Sendable) -> Bool {
    base == AnyHashable(key)
  }
}
