import AsyncBridge
import OperationCore
import TestSupport

/// An outcome, reduced to what identifies it: every outcome of a `ProbedOperation` names the
/// operation it came from, except cancellation.
enum StressOutcome: Equatable, CustomStringConvertible {
  case value(serial: Int)
  case failure(serial: Int)
  case timedOut(serial: Int?)
  case cancelled
  case unexpected(String)

  init(_ result: Result<Int, any Error>) {
    switch result {
    case .success(let serial): self = .value(serial: serial)
    case .failure(TestFailure.broken(let serial)): self = .failure(serial: serial)
    case .failure(let error as OperationTimeoutError):
      self = .timedOut(serial: ProbedOperation.serial(inName: error.operationName))
    case .failure(is CancellationError): self = .cancelled
    case .failure(let error): self = .unexpected(String(describing: error))
    }
  }

  /// The operation the outcome names, if it names one.
  var serial: Int? {
    switch self {
    case .value(let serial), .failure(let serial): serial
    case .timedOut(let serial): serial
    case .cancelled, .unexpected: nil
    }
  }

  /// The `finished` event that reports this outcome.
  var completion: OperationEvent.Completion? {
    switch self {
    case .value: .success
    case .failure: .failure
    case .timedOut: .timedOut
    case .cancelled: .cancelled
    case .unexpected: nil
    }
  }

  var description: String {
    switch self {
    case .value(let serial): "value of P\(serial)"
    case .failure(let serial): "failure of P\(serial)"
    case .timedOut(let serial): "timeout of P\(serial.map(String.init) ?? "?")"
    case .cancelled: "cancellation"
    case .unexpected(let error): "unexpected \(error)"
    }
  }
}

/// What one round did, for the run's summary.
struct StressRoundStats: Sendable {
  var actions = 0
  var operations = 0
  var enqueued = 0
  var handlers = 0
  var awaiters = 0
  var idleWaits = 0
  var joins = 0
  var completions: [OperationEvent.Completion: Int] = [:]

  mutating func add(_ other: StressRoundStats) {
    actions += other.actions
    operations += other.operations
    enqueued += other.enqueued
    handlers += other.handlers
    awaiters += other.awaiters
    idleWaits += other.idleWaits
    joins += other.joins
    completions.merge(other.completions, uniquingKeysWith: +)
  }
}

extension StressRound {
  /// Checks every invariant once the round has ended and its events are flushed; returns one
  /// line per violation.
  func verify() async -> (problems: [String], stats: StressRoundStats) {
    var problems: [String] = []
    let snapshot = state.withLock { $0 }
    let operations = snapshot.operations
    var stats = StressRoundStats(
      actions: plan.actionCount, operations: operations.count,
      handlers: snapshot.handlers.count, awaiters: snapshot.awaiters.count,
      idleWaits: snapshot.idleWaits.count)

    // Every queue drains: nothing outstanding, nothing left in the coalescing index.
    if manager.outstandingOperationCount != 0 {
      problems.append("\(manager.outstandingOperationCount) operations outstanding after idle")
    }
    for key in 0..<plan.keySpace {
      let coalescingKey = CoalescingKey(
        operationType: ProbedOperation.self, valueType: Int.self, base: key)
      if let stale = manager.inFlightOperation(for: coalescingKey) {
        problems.append("key \(key) still indexes \(stale.name ?? "?") after draining")
      }
    }
    let strangers = invariants.log.operationIDs.subtracting(snapshot.operationsByID.keys)
    if !strangers.isEmpty {
      problems.append("events for \(strangers.count) operations the round never created")
    }
    if snapshot.foreignOperations > 0 {
      problems.append("\(snapshot.foreignOperations) enqueues returned a foreign operation")
    }

    // Per operation: added to a queue at most once, run at most once and only by its queue,
    // and finished only if its queue started it or it follows work it joined.
    var outcomes: [StressOutcome?] = Array(repeating: nil, count: operations.count)
    var totalJoined = 0
    for operation in operations {
      let name = operation.name ?? "?"
      let counts = invariants.log.counts(of: operation)
      let probe = operation.probe
      totalJoined += counts.joined
      if counts.enqueued > 1 { problems.append("\(name) was enqueued \(counts.enqueued) times") }
      if probe.mainCalls > 1 { problems.append("\(name): main() ran \(probe.mainCalls) times") }
      if probe.mainCallsOffQueue > 0 {
        problems.append("\(name): main() ran \(probe.mainCallsOffQueue) times off its queue")
      }
      if counts.stalled > 1 || (counts.stalled == 1 && counts.started == 0) {
        problems.append("\(name): \(counts.stalled) stalled events, \(counts.started) started")
      }
      guard counts.enqueued == 1 else {
        // Never added to a queue: it joined other work (and, held by the round, follows it,
        // finishing with that work's outcome), or its task was cancelled first.
        if let result = operation.result, StressOutcome(result).serial == operation.serial {
          problems.append("\(name) never enqueued, but finished with its own value")
        }
        if probe.mainCalls > 0 { problems.append("\(name) never enqueued, but main() ran") }
        // Reporting the finish of one that followed reads its state on the settling thread,
        // which may be a queue's: only one that has not finished must show no queue's touch.
        if probe.startedByQueue, !operation.isFinished {
          problems.append("\(name) never enqueued, but started")
        }
        if counts.joined + counts.started + counts.finished.count > 0 {
          problems.append("\(name) never enqueued, but has events: \(counts)")
        }
        continue
      }
      stats.enqueued += 1
      if !operation.isFinished { problems.append("\(name) is not finished after draining") }
      guard let result = operation.result else {
        problems.append("\(name) has no result after draining")
        continue
      }
      let outcome = StressOutcome(result)
      outcomes[operation.serial] = outcome
      if outcome.serial.map({ $0 != operation.serial }) ?? false {
        problems.append("\(name) ended with the \(outcome)")
      }
      if outcome == .cancelled, !operation.isCancelled {
        problems.append("\(name) ended cancelled but isCancelled is false")
      }
      guard counts.finished.count == 1, let finished = counts.finished.first else {
        problems.append("\(name) has \(counts.finished.count) finished events")
        continue
      }
      stats.completions[finished.completion, default: 0] += 1
      if finished.completion != outcome.completion {
        problems.append("\(name): finished(\(finished.completion)) event, but \(outcome)")
      }
    }
    await checkStartedByQueue(operations.filter { outcomes[$0.serial] != nil }, &problems)
    await checkMainRanOncePerStart(operations, &problems)

    // Every waiter gets exactly one outcome, the one of the operation it waits on; the waiters
    // each finished event counts are the ones that received that operation's outcome.
    var deliveredBySettling = Array(repeating: 0, count: operations.count)
    for handler in snapshot.handlers {
      check(handler, operations, outcomes, &deliveredBySettling, &problems)
    }
    var cancellations = 0
    var cancellationsNotRequested = 0
    for awaiter in snapshot.awaiters {
      guard awaiter.task.completions == 1, let result = awaiter.task.result else {
        problems.append(
          "task of P\(awaiter.ownSerial) completed \(awaiter.task.completions) times")
        continue
      }
      let outcome = StressOutcome(result)
      if outcome == .cancelled {
        cancellations += 1
        if !awaiter.task.wasCancelledByTest {
          cancellationsNotRequested += 1
          let cancelledWork = operations.contains {
            outcomes[$0.serial] == .cancelled
              && (awaiter.key == nil ? $0.serial == awaiter.ownSerial : $0.key == awaiter.key)
          }
          if !cancelledWork {
            problems.append("task of P\(awaiter.ownSerial) got cancellation from nowhere")
          }
        }
        continue
      }
      guard let serial = outcome.serial, operations.indices.contains(serial),
        outcomes[serial] == outcome
      else {
        problems.append("task of P\(awaiter.ownSerial) got the \(outcome)")
        continue
      }
      let sameWork =
        awaiter.key == nil ? serial == awaiter.ownSerial : operations[serial].key == awaiter.key
      if !sameWork { problems.append("task of P\(awaiter.ownSerial) got the \(outcome)") }
      deliveredBySettling[serial] += 1
    }
    var cancelledDeliveries = 0
    for operation in operations {
      guard let outcome = outcomes[operation.serial],
        let finished = invariants.log.counts(of: operation).finished.first
      else { continue }
      let delivered = deliveredBySettling[operation.serial]
      if outcome == .cancelled {
        // A task that got cancellation either received this operation's outcome or left
        // first: count the ones that must be here and the ones that may be, over all.
        if finished.callerCount < delivered {
          problems.append(
            "P\(operation.serial): finished event counts \(finished.callerCount) waiters, "
              + "\(delivered) handlers received its cancellation")
        }
        cancelledDeliveries += finished.callerCount - delivered
      } else if finished.callerCount != delivered {
        problems.append(
          "P\(operation.serial): finished event counts \(finished.callerCount) waiters, "
            + "\(delivered) waiters received its \(outcome)")
      }
    }
    if cancelledDeliveries < cancellationsNotRequested || cancelledDeliveries > cancellations {
      problems.append(
        "finished(cancelled) events count \(cancelledDeliveries) task waiters; tasks got "
          + "\(cancellations) cancellations, \(cancellationsNotRequested) of them unrequested")
    }
    stats.joins = totalJoined
    if totalJoined < snapshot.joinsByEnqueue
      || totalJoined > snapshot.joinsByEnqueue + snapshot.awaiters.count
    {
      problems.append(
        "\(totalJoined) joined events for \(snapshot.joinsByEnqueue) joining enqueues and "
          + "\(snapshot.awaiters.count) tasks")
    }

    for wait in snapshot.idleWaits {
      switch wait.result {
      case nil:
        problems.append("an idle wait was not resumed")
      case .success?:
        break
      case .failure(let error)?:
        if !(error is CancellationError) || !wait.wasCancelledByTest {
          problems.append("an idle wait threw \(error) (cancelled: \(wait.wasCancelledByTest))")
        }
      }
    }
    problems += invariants.violations()
    return (problems, stats)
  }

  /// No operation reports finished unless its queue started it. A queue that starts an
  /// operation always calls one of its getters on the queue's own thread, a moment after
  /// `start()` at the latest, so a finished operation without that mark was never started.
  private func checkStartedByQueue(_ enqueued: [ProbedOperation], _ problems: inout [String])
    async
  {
    let unmarked = enqueued.filter { $0.isFinished && !$0.probe.startedByQueue }
    guard !unmarked.isEmpty else { return }
    if await eventually(within: .seconds(30), { unmarked.allSatisfy { $0.probe.startedByQueue } }) {
      return
    }
    let names = unmarked.filter { !$0.probe.startedByQueue }.map { $0.name ?? "?" }
    problems.append("reported finished without being started by their queue: \(names)")
  }

  /// `main()` runs once for each `started` event. The operation may be finished from another
  /// thread (draining the queue) between its start and the `started` event and `main()`, so
  /// both may come after the flush: a mismatch is waited for, reading both again.
  private func checkMainRanOncePerStart(
    _ operations: [ProbedOperation], _ problems: inout [String]
  ) async {
    let events = invariants.log
    let mismatched = {
      operations.filter { events.counts(of: $0).started != $0.probe.mainCalls }
    }
    guard !mismatched().isEmpty else { return }
    _ = await eventually(within: .seconds(30)) { mismatched().isEmpty }
    for operation in mismatched() {
      problems.append(
        "\(operation.name ?? "?"): \(invariants.log.counts(of: operation).started) started events, "
          + "main() ran \(operation.probe.mainCalls) times")
    }
  }

  private func check(
    _ handler: StressHandler, _ operations: [ProbedOperation], _ outcomes: [StressOutcome?],
    _ deliveredBySettling: inout [Int], _ problems: inout [String]
  ) {
    let label = "handler of P\(handler.ownSerial) (\(handler.origin))"
    let results = handler.results
    guard results.count == 1, let result = results.first else {
      problems.append("\(label) was called \(results.count) times")
      return
    }
    // Work that was never enqueued itself: an operation that joined other work, followed it
    // and finished with its outcome, then was enqueued again (by this handler's request).
    guard let working = handler.workingSerial,
      let outcome = outcomes[working] ?? operations[working].result.map(StressOutcome.init)
    else {
      problems.append("\(label) waits on an operation that was never enqueued nor finished")
      return
    }
    let own = operations[handler.ownSerial]
    if working != own.serial, own.key == nil || operations[working].key != own.key {
      problems.append("\(label) joined the unrelated P\(working)")
    }
    if StressOutcome(result) != outcome {
      problems.append(
        "\(label) got the \(StressOutcome(result)); P\(working) ended with the \(outcome)")
    }
    if handler.wasDeliveredAtOnce {
      // Only an operation that had settled before it was enqueued again delivers at once.
      if handler.origin == .new {
        problems.append("\(label) was called inside enqueue for new work")
      }
    } else {
      deliveredBySettling[working] += 1
    }
  }
}
