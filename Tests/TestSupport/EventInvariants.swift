import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import Testing

/// Checks a manager's event stream against the lifecycle contract, per operation:
///
/// - the events read `enqueued (joined)* started? (joined)* <one terminal>`, the terminal being
///   `finished(success | failure | cancelled | timedOut)` (`stalled` may come once, after
///   `started`); so every `enqueued` has exactly one terminal event and nothing dangles;
/// - every tracked operation admitted before a ``cancelAll(_:)`` call has settled when it
///   returns, and ends cancelled unless it had settled already;
/// - the terminal event agrees with the operation's `result` and with what its waiters got.
///
/// Feed it what the test knows (``track(_:)``, ``received(_:from:)``, ``cancelAll(_:)``), let
/// the manager drain, then call ``verify(_:timeout:)``. Each violation names the operation and
/// prints its whole sequence.
public final class EventInvariants: Sendable {
  /// What the test knows about one operation.
  private struct Tracked {
    var name: String
    var completion: @Sendable () -> OperationEvent.Completion?
    /// Held until the checker goes, so no later operation reuses its identity.
    var operation: Operation
  }

  /// A `cancelAllOperations()` call and what was admitted before it.
  private struct CancelAll {
    var number: Int
    /// Admitted operations that had not settled when the call began, and must end cancelled.
    var mustEndCancelled: Set<ObjectIdentifier>
    /// Admitted operations that had not settled when the call returned.
    var unsettled: [ObjectIdentifier]
  }

  private struct State {
    var tracked: [ObjectIdentifier: Tracked] = [:]
    var received: [(id: ObjectIdentifier, completion: OperationEvent.Completion)] = []
    var cancelAlls: [CancelAll] = []
    var problems: [String] = []
  }

  /// The events, recorded from the moment the checker was made.
  public let log: EventLog
  private let state = Locked(State())

  /// Subscribes to `manager`'s events at once, with a buffer no test fills.
  ///
  /// - Parameters:
  ///   - manager: The manager to check.
  ///   - onEvent: Called for each event, on the log's task.
  public init(
    _ manager: OperationQueueManager, onEvent: (@Sendable (OperationEvent) -> Void)? = nil
  ) {
    log = EventLog(manager, onEvent: onEvent)
  }

  /// Remembers `operation`, admitted or not: its `result` is checked against its terminal
  /// event, and ``cancelAll(_:)`` checks it if it had an `enqueued` event by then. Track every
  /// operation a test creates: the checker keeps it alive, so that no later operation takes
  /// over its identity (events name operations by `ObjectIdentifier`).
  public func track<Value, Failure>(_ operation: ConcurrentOperation<Value, Failure>) {
    let name = operation.name ?? String(describing: type(of: operation))
    let tracked = Tracked(
      name: name, completion: { operation.result.map(EventInvariants.completion(of:)) },
      operation: operation)
    state.withLock { $0.tracked[ObjectIdentifier(operation)] = tracked }
  }

  /// Tracks `operation`, enqueues it on `manager` with a completion handler, and checks what
  /// the handler receives against the terminal event of the operation the enqueue returned
  /// (which may settle and call the handler before the enqueue returns).
  ///
  /// - Returns: The operation doing the work, as `enqueue` returned it.
  @discardableResult
  public func enqueue<Value: Sendable, Failure>(
    _ operation: ConcurrentOperation<Value, Failure>, on manager: OperationQueueManager,
    callbackQueue: CallbackQueue? = nil,
    completion: @escaping @Sendable (Result<Value, any Error>) -> Void = { _ in }
  ) -> ConcurrentOperation<Value, Failure> {
    track(operation)
    let pairing = Locked<(admitted: Operation?, result: Result<Value, any Error>?)>((nil, nil))
    let admitted = manager.enqueue(operation, callbackQueue: callbackQueue) {
      (result: Result<Value, any Error>) in
      let admitted = pairing.withLock { pairing in
        pairing.result = result
        return pairing.admitted
      }
      if let admitted { self.received(result, from: admitted) }
      completion(result)
    }
    let early = pairing.withLock { pairing in
      pairing.admitted = admitted
      return pairing.result
    }
    if let early { received(early, from: admitted) }
    return admitted
  }

  /// Records that a waiter of `operation` (the one doing the work) received `result`.
  public func received<Value>(_ result: Result<Value, any Error>, from operation: Operation) {
    received(Self.completion(of: result), from: operation)
  }

  /// Records that a waiter of `operation` (the one doing the work) received `completion`.
  public func received(_ completion: OperationEvent.Completion, from operation: Operation) {
    let id = ObjectIdentifier(operation)
    state.withLock { $0.received.append((id, completion)) }
  }

  /// Calls `manager.cancelAllOperations()`, and checks that every tracked operation admitted
  /// (with an `enqueued` event recorded) and unsettled before the call has settled when it
  /// returns; unless `othersMaySettle`, ``verify(_:timeout:)`` then expects each to end
  /// cancelled.
  ///
  /// Call it once the events of the admissions it should cover have been recorded (wait for
  /// them); pass `othersMaySettle` where other threads may finish, cancel or time out those
  /// operations during the call.
  public func cancelAll(_ manager: OperationQueueManager, othersMaySettle: Bool = false) {
    let candidates = state.withLock { $0.tracked }
    let pending = candidates.filter { id, tracked in
      tracked.completion() == nil && log.events(of: id).first?.kind == .enqueued
    }
    manager.cancelAllOperations()
    let unsettled = pending.filter { $0.value.completion() == nil }.map(\.key)
    state.withLock { state in
      state.cancelAlls.append(
        CancelAll(
          number: state.cancelAlls.count + 1,
          mustEndCancelled: othersMaySettle ? [] : Set(pending.keys), unsettled: unsettled))
    }
  }

  /// Waits (bounded) until `manager` is idle and every event it published is recorded, then
  /// returns one line per violation; empty when every invariant holds.
  public func verify(_ manager: OperationQueueManager, timeout: Duration = .testTimeout) async
    -> [String]
  {
    var problems: [String] = []
    if !(await becomesIdle(manager, within: timeout)) {
      problems.append(
        "the manager did not become idle within \(timeout): "
          + "\(manager.outstandingOperationCount) outstanding")
    }
    if !(await log.flush(manager, timeout: timeout)) {
      problems.append("the event stream did not deliver its flush marker within \(timeout)")
    }
    return problems + violations()
  }

  /// Records an issue per violation (the first 20) found by ``verify(_:timeout:)``.
  public func expectValid(
    _ manager: OperationQueueManager, context: String = "", timeout: Duration = .testTimeout,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let problems = await verify(manager, timeout: timeout)
    for problem in problems.prefix(20) {
      Issue.record(
        "\(context)\(context.isEmpty ? "" : ": ")\(problem)", sourceLocation: sourceLocation)
    }
    if problems.count > 20 {
      Issue.record(
        "\(context): \(problems.count - 20) more violations", sourceLocation: sourceLocation)
    }
  }

  /// The violations among the events recorded so far; call once the events are flushed.
  public func violations() -> [String] {
    let snapshot = state.withLock { $0 }
    var problems = snapshot.problems
    if log.mayHaveDropped {
      problems.append("the event log reached its buffer of \(log.bufferSize): events may be lost")
    }
    var terminals: [ObjectIdentifier: OperationEvent.Completion] = [:]
    var names: [ObjectIdentifier: String] = [:]
    for id in log.operationIDs.union(snapshot.tracked.keys) {
      let events = log.events(of: id)
      let name = events.first?.operationName ?? snapshot.tracked[id]?.name ?? "?"
      names[id] = name
      let sequence = "\(name) [\(events.map { $0.kind.shortName }.joined(separator: ", "))]"
      if let problem = Self.lifecycleProblem(events.map(\.kind)) {
        problems.append("\(sequence): \(problem)")
      }
      let terminal = events.lazy.compactMap(Self.terminal(of:)).first
      terminals[id] = terminal
      if let terminal, let result = snapshot.tracked[id]?.completion(), result != terminal {
        problems.append(
          "\(sequence): its result is \(OperationEvent.Kind.finished(result).shortName)")
      }
      if events.isEmpty, let tracked = snapshot.tracked[id], tracked.completion() == nil,
        snapshot.received.contains(where: { $0.id == id })
      {
        problems.append("\(sequence): a waiter got an outcome of an operation with no events")
      }
    }
    for (id, completion) in snapshot.received {
      guard let terminal = terminals[id] else {
        if !log.events(of: id).isEmpty {
          problems.append("\(names[id] ?? "?"): a waiter got \(completion), no terminal event")
        }
        continue
      }
      if terminal != completion {
        let events = log.events(of: id).map { $0.kind.shortName }.joined(separator: ", ")
        let received = OperationEvent.Kind.finished(completion).shortName
        problems.append("\(names[id] ?? "?") [\(events)]: a waiter received \(received)")
      }
    }
    for cancelAll in snapshot.cancelAlls {
      for id in cancelAll.unsettled {
        let events = log.events(of: id).map { $0.kind.shortName }.joined(separator: ", ")
        problems.append(
          "\(names[id] ?? "?") [\(events)]: admitted before cancelAllOperations() "
            + "#\(cancelAll.number), but not settled when it returned")
      }
      for id in cancelAll.mustEndCancelled where terminals[id] != .cancelled {
        let events = log.events(of: id).map { $0.kind.shortName }.joined(separator: ", ")
        problems.append(
          "\(names[id] ?? "?") [\(events)]: admitted before cancelAllOperations() "
            + "#\(cancelAll.number) and unsettled then, but did not end cancelled")
      }
    }
    return problems
  }

  // MARK: The grammar

  /// Where the states of one operation's sequence stand.
  private enum Position {
    case none, enqueued, started, ended
  }

  /// The first rule of the lifecycle grammar that one operation's event `kinds` break, or nil.
  public static func lifecycleProblem(_ kinds: [OperationEvent.Kind]) -> String? {
    guard !kinds.isEmpty else { return nil }
    var position = Position.none
    var stalled = 0
    for (index, kind) in kinds.enumerated() {
      let at = "event \(index + 1) (\(kind.shortName))"
      switch (position, kind) {
      case (.none, .enqueued):
        position = .enqueued
      case (.none, _):
        return "\(at) before `enqueued`"
      case (_, .enqueued):
        return "\(at): enqueued twice"
      case (.enqueued, .joined), (.started, .joined):
        break
      case (.enqueued, .started):
        position = .started
      case (.started, .started):
        return "\(at): started twice"
      case (.enqueued, .stalled):
        return "\(at): stalled before it started"
      case (.started, .stalled), (.ended, .stalled):
        stalled += 1
        if stalled > 1 { return "\(at): stalled twice" }
      case (.started, .retrying):
        break
      case (.enqueued, .retrying):
        return "\(at): retrying before it started"
      case (.enqueued, .finished), (.started, .finished):
        position = .ended
      case (.ended, .finished):
        return "\(at): a second terminal event"
      case (.ended, _):
        return "\(at) after the terminal event"
      }
    }
    return position == .ended ? nil : "no terminal event"
  }

  private static func terminal(of event: OperationEvent) -> OperationEvent.Completion? {
    if case .finished(let completion) = event.kind { return completion }
    return nil
  }

  /// The completion a waiter's `result` stands for.
  public static func completion<Value>(of result: Result<Value, any Error>)
    -> OperationEvent.Completion
  {
    switch result {
    case .success: .success
    case .failure(is CancellationError): .cancelled
    case .failure(is OperationTimeoutError): .timedOut
    case .failure: .failure
    }
  }
}
