/// An operation's flat list of waiters, in arrival order.
///
/// The first waiter is kept inline: most operations have exactly one, and an inline entry
/// costs no allocation on the enqueue and settle path.
struct WaiterList: Sendable {
  typealias Waiter = OperationWaiter

  private var first: Waiter?
  private var firstID: Waiter.ID = 0
  private var others: [Waiter] = []
  private var otherIDs: [Waiter.ID] = []

  /// How many waiters are in the list.
  var count: Int { (first == nil ? 0 : 1) + others.count }

  /// Whether the list is empty.
  var isEmpty: Bool { first == nil && others.isEmpty }

  /// Adds a waiter at the end.
  mutating func append(_ waiter: Waiter, id: Waiter.ID) {
    if first == nil && others.isEmpty {
      first = waiter
      firstID = id
    } else {
      others.append(waiter)
      otherIDs.append(id)
    }
  }

  /// Removes the waiter with `id` and returns it, or nil if it is not in the list.
  mutating func remove(id: Waiter.ID) -> Waiter? {
    if let first, firstID == id {
      self.first = nil
      return first
    }
    guard let index = otherIDs.lastIndex(of: id) else { return nil }
    otherIDs.remove(at: index)
    return others.remove(at: index)
  }

  /// Resumes every waiter with `outcome`, in order. Call it outside any lock.
  func resumeAll(with outcome: ErasedOutcome) {
    first?.resume(with: outcome)
    for waiter in others { waiter.resume(with: outcome) }
  }
}
