extension Benchmark {
  /// The paths whose instruction counts judge a change to the core: each runs only this
  /// library's side of its scenario, once, so that a run under `valgrind --tool=callgrind` at
  /// two sizes gives the cost of one operation as the difference divided by the difference in
  /// size (`.ci/count-instructions` does that).
  package enum CountedPath: String, CaseIterable, Sendable {
    /// No-op operations with completion handlers through a manager (`throughput`'s side).
    case throughput
    /// Sequential `try await manager.perform(_:)` (`await_overhead`'s side).
    case awaitOverhead = "await_overhead"
    /// Sequential `try await manager.run { }` without a key: `await_overhead` with a closure
    /// for the operation, so the two figures give what a run costs beyond a `perform`.
    case runOverhead = "run_overhead"
    /// 100 concurrent tasks, each awaiting its share in turn (`await_concurrent`'s side).
    case awaitConcurrent = "await_concurrent"
    /// `throughput` with one `makeEvents()` subscriber draining the stream.
    case eventsOverhead = "events_overhead"
    /// `await_overhead` with an operation that reports its progress once, nobody observing.
    case progressReported = "progress_reported"
    /// `progress_reported` with each caller observing the progress (`onProgress`).
    case progressObserved = "progress_observed"
    /// A task joining a `run(key:)` in flight, then resumed with its value.
    case joinRunKey = "join_run_key"
    /// A task joining `perform` of a keyed `AsyncOperation` in flight (building one to drop).
    case joinPerform = "join_perform"
    /// A task joining pending work that others keep, then cancelled: it leaves.
    case leavePending = "leave_pending"
    /// A task awaiting pending work alone, then cancelled: it leaves and the work is cancelled.
    case leaveLast = "leave_last"

    /// Runs the path for `count` operations.
    package func run(count: Int) async throws {
      switch self {
      case .throughput:
        _ = try await Throughput.ours(count: count)
      case .awaitOverhead:
        _ = try await AwaitOverhead.ours(count: count)
      case .runOverhead:
        _ = try await AwaitOverhead.runs(count: count)
      case .awaitConcurrent:
        _ = try await AwaitConcurrent.ours(tasks: 100, awaits: max(1, count / 100))
      case .eventsOverhead:
        _ = try await EventsOverhead.subscribed(count: count)
      case .progressReported:
        try await ProgressOverhead.reported(count: count)
      case .progressObserved:
        try await ProgressOverhead.observed(count: count)
      case .joinRunKey:
        try await JoinAndLeave.joinRunKey(count: count)
      case .joinPerform:
        try await JoinAndLeave.joinPerform(count: count)
      case .leavePending:
        try await JoinAndLeave.leavePending(count: count)
      case .leaveLast:
        try await JoinAndLeave.leaveLast(count: count)
      }
    }
  }
}
