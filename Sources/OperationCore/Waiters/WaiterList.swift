/// An operation's flat list of waiters, in arrival order.
///
/// Adding and resuming cost O(1) per waiter; removing one costs O(log n). Identities grow with
/// arrival, so the list stays sorted by identity: removal finds its entry by binary search and
/// leaves a hole, and holes are squeezed out once they are half the list (amortised O(1)).
/// Cancelling every one of n waiters therefore costs O(n log n) in all, never O(n²).
///
/// The first waiter is kept inline: most operations have exactly one, and an inline entry
/// costs no allocation on the enqueue and settle path.
///
/// Followers (dropped requests of the work) are kept apart, as weak references: they never
/// leave and are no callers, and one costs a pointer, not a waiter entry and a closure.
struct WaiterList: Sendable {
  typealias Waiter = OperationWaiter

  private struct Entry: Sendable {
    let id: Waiter.ID
    /// nil once the waiter left: a hole until the next compaction.
    var waiter: Waiter?
  }

  private var first: Entry?
  /// Later waiters, sorted by identity (they arrive in identity order), holes included.
  private var others: [Entry] = []
  private var holes = 0
  /// Dropped requests that follow the work, in arrival order; nil once released.
  private var followers: [Follower] = []

  /// A dropped request following the work, held weakly: the work must not keep it, and one
  /// nobody else holds has nobody to tell.
  private struct Follower: @unchecked Sendable {
    // Written once, before the list is shared; read through the weak reference's own atomics.
    weak var operation: AnyObject?
  }

  /// How many callers are in the list: its waiters but those only ``Waiter/Interest/following``
  /// the work, which never leave.
  private(set) var count = 0

  /// Whether no caller is in the list.
  var isEmpty: Bool { count == 0 }

  /// Adds a waiter at the end. `id` must be greater than every identity added before.
  mutating func append(_ waiter: Waiter, id: Waiter.ID) {
    if waiter.isCaller { count += 1 }
    if first == nil && others.isEmpty {
      first = Entry(id: id, waiter: waiter)
    } else {
      others.append(Entry(id: id, waiter: waiter))
    }
  }

  /// Adds a dropped request that follows the work (it is no caller). Followers already gone
  /// are dropped whenever the list would grow: nobody holds them, so there is nobody to tell,
  /// and their weak references (with the runtime's record of them) would otherwise stay until
  /// the work settles, for every such request.
  mutating func appendFollower(_ operation: AnyObject) {
    if followers.count == followers.capacity {
      followers.removeAll { $0.operation == nil }
    }
    followers.append(Follower(operation: operation))
  }

  /// Calls `body` with each follower still alive, in arrival order. Call it outside any lock.
  func forEachFollower(_ body: (AnyObject) -> Void) {
    for follower in followers {
      if let operation = follower.operation { body(operation) }
    }
  }

  /// Removes the waiter with `id` and returns it, or nil if it is not in the list.
  mutating func remove(id: Waiter.ID) -> Waiter? {
    if let first, first.id == id {
      self.first = nil
      if first.waiter?.isCaller == true { count -= 1 }
      return first.waiter
    }
    guard let index = index(of: id), let waiter = others[index].waiter else { return nil }
    others[index].waiter = nil
    if waiter.isCaller { count -= 1 }
    holes += 1
    if holes * 2 > others.count {
      others.removeAll { $0.waiter == nil }
      holes = 0
    }
    return waiter
  }

  /// Resumes every waiter with `outcome`, in arrival order. Call it outside any lock.
  func resumeAll(with outcome: ErasedOutcome) {
    first?.waiter?.resume(with: outcome)
    // Through the buffer, so each waiter is resumed where it is stored, not copied out first.
    others.withUnsafeBufferPointer { entries in
      for index in entries.indices { entries[index].waiter?.resume(with: outcome) }
    }
  }

  /// The position of `id` in `others`, by binary search.
  private func index(of id: Waiter.ID) -> Int? {
    var low = 0
    var high = others.count
    while low < high {
      let middle = (low + high) / 2
      let middleID = others[middle].id
      if middleID == id { return middle }
      if middleID < id { low = middle + 1 } else { high = middle }
    }
    return nil
  }
}
