/// The pending entries of a ``Scheduler``: a binary min-heap by due instant (ties in the order
/// they were added), with each entry's place recorded so that one is taken out in O(log n).
struct TimerHeap {
  /// One pending timer.
  struct Entry {
    /// When it is due.
    let due: ClockInstant
    /// Its identity, which also orders entries due at the same instant.
    let id: UInt64
    /// What runs when it is due.
    let action: @Sendable () -> Void

    /// Whether this entry runs before `other`.
    func precedes(_ other: Entry) -> Bool {
      due < other.due || (due == other.due && id < other.id)
    }
  }

  private var heap: [Entry] = []
  /// Each pending entry's place in `heap`.
  private var places: [UInt64: Int] = [:]
  /// From 1: an entry's holder may keep 0 for "none".
  private var nextID: UInt64 = 1

  /// The earliest due instant, or nil when nothing is pending.
  var earliest: ClockInstant? { heap.first?.due }

  /// How many entries are pending.
  var count: Int { heap.count }

  /// Adds an entry due at `due`; returns its identity.
  mutating func insert(due: ClockInstant, action: @escaping @Sendable () -> Void) -> UInt64 {
    let id = nextID
    nextID += 1
    heap.append(Entry(due: due, id: id, action: action))
    places[id] = heap.count - 1
    siftUp(heap.count - 1)
    return id
  }

  /// Takes the entry `id` out; false when it is not pending (it ran, or was taken out).
  @discardableResult
  mutating func remove(_ id: UInt64) -> Bool {
    guard let place = places[id] else { return false }
    remove(at: place)
    return true
  }

  /// Takes out the earliest entry if it is due at or before `now`.
  mutating func popDue(at now: ClockInstant) -> Entry? {
    guard let first = heap.first, first.due <= now else { return nil }
    remove(at: 0)
    return first
  }

  /// How many pending entries are due within `range`.
  func count(dueIn range: ClosedRange<ClockInstant>) -> Int {
    heap.count { range.contains($0.due) }
  }

  private mutating func remove(at place: Int) {
    let last = heap.count - 1
    places[heap[place].id] = nil
    if place != last {
      heap[place] = heap[last]
      places[heap[place].id] = place
    }
    heap.removeLast()
    guard place < heap.count else { return }
    siftDown(siftUp(place))
  }

  /// Moves the entry at `place` up while it runs before its parent; returns where it ends.
  @discardableResult
  private mutating func siftUp(_ place: Int) -> Int {
    var child = place
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].precedes(heap[parent]) else { break }
      swapEntries(child, parent)
      child = parent
    }
    return child
  }

  /// Moves the entry at `place` down while a child runs before it.
  private mutating func siftDown(_ place: Int) {
    var parent = place
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { return }
      let right = left + 1
      let earlier = right < heap.count && heap[right].precedes(heap[left]) ? right : left
      guard heap[earlier].precedes(heap[parent]) else { return }
      swapEntries(parent, earlier)
      parent = earlier
    }
  }

  private mutating func swapEntries(_ first: Int, _ second: Int) {
    heap.swapAt(first, second)
    places[heap[first].id] = first
    places[heap[second].id] = second
  }
}
