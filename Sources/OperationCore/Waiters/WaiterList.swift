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
/// Each caller's waiter carries its priority; once a second caller arrives the list also counts
/// them by level (``PriorityTally``), so the highest priority among the callers still waiting is
/// known at once as they come, leave and are escalated.
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
  private var holes: UInt32 = 0
  /// How many callers are in the list. Next to `holes`, so the two take one word.
  private var callers: UInt32 = 0
  /// The callers' priorities by level, once a second caller arrived; before, the first entry's.
  private var priorities: PriorityTally?
  /// Dropped requests that follow the work, in arrival order; nil once freed.
  private var followers: [Follower] = []

  /// A dropped request following the work, held weakly: the work must not keep it, and one
  /// nobody else holds has nobody to tell.
  private struct Follower: @unchecked Sendable {
    // Written once, before the list is shared; read through the weak reference's own atomics.
    weak var operation: AnyObject?
  }

  /// How many callers are in the list: its waiters but those only ``Waiter/Interest/following``
  /// the work, which never leave.
  var count: Int { Int(callers) }

  /// The highest priority among the callers in the list; ``PriorityLevel/none`` when none
  /// stated one.
  var highestPriority: PriorityLevel {
    if let priorities { return priorities.highest }
    return first?.waiter?.priority ?? .none
  }

  /// Whether no caller is in the list.
  var isEmpty: Bool { count == 0 }

  /// Adds a waiter at the end, whose caller asks for `priority`. `id` must be greater than
  /// every identity added before.
  mutating func append(_ waiter: Waiter, id: Waiter.ID, priority: PriorityLevel) {
    var waiter = waiter
    if waiter.isCaller {
      callers += 1
      waiter.priority = priority
    }
    if first == nil && others.isEmpty {
      priorities?.add(waiter.priority)
      first = Entry(id: id, waiter: waiter)
    } else {
      tally().add(waiter.priority)
      others.append(Entry(id: id, waiter: waiter))
    }
  }

  /// Raises the priority of the caller with `id` to `priority`, if it is in the list and asked
  /// for less; returns whether it did.
  mutating func escalate(id: Waiter.ID, to priority: PriorityLevel) -> Bool {
    if let first, first.id == id {
      guard let waiter = first.waiter, waiter.isCaller, waiter.priority < priority else {
        return false
      }
      priorities?.remove(waiter.priority)
      priorities?.add(priority)
      self.first?.waiter?.priority = priority
      return true
    }
    guard let index = index(of: id), let waiter = others[index].waiter, waiter.isCaller,
      waiter.priority < priority
    else { return false }
    priorities?.remove(waiter.priority)
    priorities?.add(priority)
    others[index].waiter?.priority = priority
    return true
  }

  /// The tally, made with the first entry's priority when a second caller arrives.
  private mutating func tally() -> PriorityTally {
    if let priorities { return priorities }
    let made = PriorityTally()
    if let waiter = first?.waiter { made.add(waiter.priority) }
    priorities = made
    return made
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
      if let waiter = first.waiter {
        if waiter.isCaller { callers -= 1 }
        priorities?.remove(waiter.priority)
      }
      return first.waiter
    }
    guard let index = index(of: id), let waiter = others[index].waiter else { return nil }
    others[index].waiter = nil
    if waiter.isCaller { callers -= 1 }
    priorities?.remove(waiter.priority)
    holes += 1
    if Int(holes) * 2 > others.count {
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
