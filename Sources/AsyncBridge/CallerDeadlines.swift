import Dispatch
import LockedValue
import OperationCore

/// The callers' deadlines: one Dispatch timer for all of them, armed for the earliest, and a
/// heap of the pending ones. A caller that gets its outcome first takes its deadline out at
/// once, so a far deadline keeps nothing once its caller is done (a Dispatch timer per caller
/// would keep its memory until it fired, however long that was).
///
/// Adding and removing a deadline cost O(log n) under one lock; the timer's handler takes the
/// deadlines that are due out under the lock and runs their actions after releasing it.
final class CallerDeadlines: @unchecked Sendable {
  // State lives in `state`, guarded by its lock; the timer is rescheduled only under it (a
  // Dispatch source may be used from any thread, but is not marked `Sendable` on Linux).
  /// The deadlines of every caller in the process.
  static let shared = CallerDeadlines()

  private struct Entry {
    /// When it is due, in `DispatchTime.uptimeNanoseconds`.
    let due: UInt64
    let id: UInt64
    let action: @Sendable () -> Void
  }

  private struct State {
    /// A binary min-heap by `due`.
    var heap: [Entry] = []
    /// Each pending deadline's place in `heap`.
    var places: [UInt64: Int] = [:]
    var nextID: UInt64 = 0
    /// What the timer is armed for; nil when it is not armed.
    var armedFor: UInt64?
  }

  // A pthread mutex (`Locked`), not `Mutex`: ThreadSanitizer on Linux does not see `Mutex`'s
  // hand-off, and deadlines are armed and taken out from every test that awaits.
  private let state = Locked(State())
  private let timer: any DispatchSourceTimer

  /// A new set of deadlines with its own timer; ``shared`` is the one callers use.
  init() {
    timer = DispatchSource.makeTimerSource(queue: .global())
    // Weak: an armed source outlives its owner until cancelled, and may fire once after it.
    timer.setEventHandler { [weak self] in self?.fireDue() }
    timer.activate()
  }

  deinit {
    timer.cancel()
  }

  /// Runs `action` once `delay` has passed, on a global queue, unless ``cancel(_:)`` takes it
  /// out first. Returns its identity.
  func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> UInt64 {
    // Saturates at `DispatchTime.distantFuture` for delays too long to count in nanoseconds.
    schedule(at: DispatchTime.now() + max(delay, .zero).timeInterval, action)
  }

  /// Runs `action` at `deadline`, as ``schedule(after:_:)`` does.
  func schedule(at deadline: DispatchTime, _ action: @escaping @Sendable () -> Void) -> UInt64 {
    let due = deadline.uptimeNanoseconds
    return state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      state.heap.append(Entry(due: due, id: id, action: action))
      state.places[id] = state.heap.count - 1
      siftUp(state.heap.count - 1, in: &state)
      rearm(&state)
      return id
    }
  }

  /// Takes the deadline `id` out, unless it has fired.
  func cancel(_ id: UInt64) {
    state.withLock { state in
      guard let place = state.places[id] else { return }
      remove(at: place, in: &state)
      rearm(&state)
    }
  }

  /// How many pending deadlines are due between `earliest` and `latest` from now.
  func pendingCount(dueBetween earliest: Duration, and latest: Duration) -> Int {
    let now = DispatchTime.now()
    let lower = (now + earliest.timeInterval).uptimeNanoseconds
    let upper = (now + latest.timeInterval).uptimeNanoseconds
    return state.withLock { $0.heap.count { (lower...upper).contains($0.due) } }
  }

  /// The timer fired: runs every deadline that is due, outside the lock, and arms the timer
  /// for the next one.
  private func fireDue() {
    let due = state.withLock { state -> [@Sendable () -> Void] in
      state.armedFor = nil
      let now = DispatchTime.now().uptimeNanoseconds
      var actions: [@Sendable () -> Void] = []
      while let first = state.heap.first, first.due <= now {
        actions.append(first.action)
        remove(at: 0, in: &state)
      }
      rearm(&state)
      return actions
    }
    for action in due { action() }
  }

  /// Arms the timer for the earliest deadline, if it is not armed for it already. Under the
  /// lock, so two rearmings never cross.
  private func rearm(_ state: inout State) {
    guard let earliest = state.heap.first?.due else { return }
    guard state.armedFor != earliest else { return }
    state.armedFor = earliest
    timer.schedule(deadline: DispatchTime(uptimeNanoseconds: earliest), leeway: .nanoseconds(0))
  }

  // MARK: The heap

  private func remove(at place: Int, in state: inout State) {
    let last = state.heap.count - 1
    state.places[state.heap[place].id] = nil
    if place != last {
      state.heap[place] = state.heap[last]
      state.places[state.heap[place].id] = place
    }
    state.heap.removeLast()
    guard place < state.heap.count else { return }
    siftDown(siftUp(place, in: &state), in: &state)
  }

  /// Moves the entry at `place` up while it is due before its parent; returns where it ends.
  @discardableResult
  private func siftUp(_ place: Int, in state: inout State) -> Int {
    var child = place
    while child > 0 {
      let parent = (child - 1) / 2
      guard state.heap[child].due < state.heap[parent].due else { break }
      swapEntries(child, parent, in: &state)
      child = parent
    }
    return child
  }

  /// Moves the entry at `place` down while a child is due before it.
  private func siftDown(_ place: Int, in state: inout State) {
    var parent = place
    while true {
      let left = 2 * parent + 1
      guard left < state.heap.count else { return }
      let right = left + 1
      let earlier =
        right < state.heap.count && state.heap[right].due < state.heap[left].due ? right : left
      guard state.heap[earlier].due < state.heap[parent].due else { return }
      swapEntries(parent, earlier, in: &state)
      parent = earlier
    }
  }

  private func swapEntries(_ first: Int, _ second: Int, in state: inout State) {
    state.heap.swapAt(first, second)
    state.places[state.heap[first].id] = first
    state.places[state.heap[second].id] = second
  }
}
