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
  public final var currentProgress: OperationProgress? { progressHub.load()?.current }

  /// Adds `observer` to the operation's progress: it is handed the current value at once, if
  /// there is one, then every later one until its caller has the outcome.
  package final func observeProgress(_ observer: ProgressObserver) {
    makeProgressHub().add(observer)
  }

  /// The operation's progress hub, made if it has none yet.
  private func makeProgressHub() -> ProgressHub {
    progressHub.load() ?? progressHub.storeIfNil(ProgressHub())
  }
}
