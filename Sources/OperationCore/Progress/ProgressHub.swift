import LockedValue

/// One operation's progress: the newest value reported and the callers observing it.
///
/// Made the first time the operation reports progress or a caller observes it, so an operation
/// nobody observes and that reports nothing never has one. A caller that starts observing is
/// handed the current value at once, then every later one (see ``ProgressObserver`` for how each
/// caller is called). Once the operation settles the hub closes: reports are dropped and the
/// observers let go.
final class ProgressHub: Sendable {
  private struct State {
    var current: ProgressObserver.Stamped?
    /// The observers, by identity: one leaves in O(1) however many observe.
    var observers: [ObjectIdentifier: ProgressObserver] = [:]
    var isClosed = false
  }

  // State lives in `state`, guarded by its lock (a leaf: nothing is called while it is held).
  private let state = Locked(State())

  /// The newest value reported; nil before the first.
  var current: OperationProgress? { state.withLock { $0.current?.progress } }

  /// Records `progress` if it is a step forward, and offers it to every observer, outside the
  /// lock. Does nothing once the hub is closed.
  func report(_ progress: OperationProgress) {
    let (stamped, observers) = state.withLock {
      state -> (ProgressObserver.Stamped?, [ProgressObserver]) in
      guard !state.isClosed else { return (nil, []) }
      if let current = state.current, !progress.isStep(after: current.progress) {
        return (nil, [])
      }
      let stamped = ProgressObserver.Stamped(
        sequence: (state.current?.sequence ?? 0) + 1, progress: progress)
      state.current = stamped
      return (stamped, state.observers.isEmpty ? [] : Array(state.observers.values))
    }
    guard let stamped else { return }
    for observer in observers { observer.offer(stamped) }
  }

  /// Adds `observer` and hands it the current value, if there is one. Does nothing when the
  /// hub is closed or the observer is (its caller has its outcome already). An observer closed
  /// between the two steps stays listed, silent, until the hub closes: the observer's lock and
  /// the hub's never nest, so the two steps cannot be one.
  func add(_ observer: ProgressObserver) {
    guard observer.follow(self) else { return }
    let current = state.withLock { state -> ProgressObserver.Stamped? in
      guard !state.isClosed else { return nil }
      state.observers[ObjectIdentifier(observer)] = observer
      return state.current
    }
    if let current { observer.offer(current) }
  }

  /// Lets `observer` go: its caller has its outcome or left.
  func remove(_ observer: ProgressObserver) {
    _ = state.withLock { $0.observers.removeValue(forKey: ObjectIdentifier(observer)) }
  }

  /// The operation settled: later reports are dropped and the observers let go (each is closed
  /// by its own caller's waiter).
  func close() {
    let observers = state.withLock { state -> [ObjectIdentifier: ProgressObserver] in
      state.isClosed = true
      defer { state.observers = [:] }
      return state.observers
    }
    // Let go outside the lock: an observer's last reference may run its handler's deinit.
    _ = observers
  }
}
