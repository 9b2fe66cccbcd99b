import Synchronization

extension ConcurrentOperation {
  /// Reports how far the work has come, from any thread: every caller observing the operation
  /// (through `onProgress`) is handed the value, coalesced callers alike.
  ///
  /// Progress never goes backwards: a report with fewer units done than the current value, or
  /// a smaller known share, is dropped (a retry that starts its count again is shown only once
  /// it passes the earlier attempt). Reports after the operation settled are dropped too.
  /// Observers are called on their own queues, never on the reporting thread.
  ///
  /// - Parameters:
  ///   - completed: The units done so far (bytes received, items processed).
  ///   - total: The units the work will take, or nil while unknown.
  public final func reportProgress(completed: Int64, total: Int64?) {
    makeProgressHub().report(OperationProgress(completed: completed, total: total))
  }

  /// The newest progress reported; nil before the first report.
  public final var currentProgress: OperationProgress? {
    progressHub.load(ordering: .acquiring)?.takeUnretainedValue().current
  }

  /// Adds `observer` to the operation's progress: it is handed the current value at once, if
  /// there is one, then every later one until its caller has the outcome.
  package final func observeProgress(_ observer: ProgressObserver) {
    makeProgressHub().add(observer)
  }

  /// The operation's progress hub, made if it has none yet. The first one stored wins; the
  /// operation keeps it until it goes.
  private func makeProgressHub() -> ProgressHub {
    if let hub = progressHub.load(ordering: .acquiring) { return hub.takeUnretainedValue() }
    let made = Unmanaged.passRetained(ProgressHub())
    let (stored, original) = progressHub.compareExchange(
      expected: nil, desired: made, ordering: .acquiringAndReleasing)
    if stored { return made.takeUnretainedValue() }
    // Another thread stored one first (a non-nil value, since the exchange failed).
    made.release()
    guard let original else { preconditionFailure("a failed exchange found no hub") }
    return original.takeUnretainedValue()
  }
}
