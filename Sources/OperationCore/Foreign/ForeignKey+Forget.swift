// Foreign work sits in the index under its class and the caller's key: forgetting the caller's
// key finds it through the caller's part.
extension ForeignKey: CallerKeyHolding {
  func hasCallerKey(_ key: any Hashable & Sendable) -> Bool {
    (key as? Base) == base
  }
}
