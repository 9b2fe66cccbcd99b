extension OperationQueueManager {
  /// Forgets the work in flight for `operation`'s coalescing key: it is no longer joined, so the
  /// next request for that key starts new work, as after a write that makes the work's data
  /// stale.
  ///
  /// ```swift
  /// try await manager.perform(PostAnswer(answer))
  /// manager.forget(FetchQuestions(page: 1))  // the next page 1 is fetched anew
  /// ```
  ///
  /// Callers already waiting keep the forgotten work and receive its outcome; it still runs,
  /// reports its events (no `joined` once forgotten) and counts for ``isIdle``. When it ends it
  /// never removes the newer work's entry from the index. Nothing in flight under the key, or
  /// an operation without a key: nothing happens. `operation` itself is only read for its key;
  /// it need not be the one in flight.
  ///
  /// - Parameter operation: An operation whose ``ConcurrentOperation/coalescingKey`` names the
  ///   work to forget.
  public func forget<Value, Failure>(_ operation: ConcurrentOperation<Value, Failure>) {
    guard let key = operation.coalescingKey else { return }
    forget(coalescingKey: key)
  }

  /// Forgets the work in flight under exactly `key` (its operation class and caller-supplied
  /// value); as ``forget(_:)``.
  ///
  /// - Parameter key: The work's key, as ``inFlightOperation(for:)`` takes it.
  public func forget(coalescingKey key: CoalescingKey) {
    state.withLock { _ = $0.inFlight.removeValue(forKey: key) }
  }

  /// Forgets all work in flight that was requested with `key`: `run(key:)` work, foreign work
  /// performed with a `coalescingKey:`, and operations built with `init(coalescingKey:)`,
  /// whatever their class or value type; as ``forget(_:)``. Keys of different types are never
  /// equal (`1` and `Int64(1)` are two keys).
  ///
  /// ```swift
  /// manager.forget(key: "questions")
  /// ```
  ///
  /// O(n) in the work in flight on this manager, under its lock: the index is kept by full
  /// keys, so that the common request needs no second one.
  ///
  /// - Parameter key: The caller-supplied key the work was requested with.
  public func forget(key: some Hashable & Sendable) {
    state.withLock { state in
      for entry in state.inFlight.keys where entry.storage.hasCallerKey(key) {
        state.inFlight[entry] = nil
      }
    }
  }
}
