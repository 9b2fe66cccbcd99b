import Foundation
import OperationCore
import TestSupport

/// The events of one operation, counted by kind.
struct StressEventCounts: CustomStringConvertible {
  var enqueued = 0
  var joined = 0
  var started = 0
  var stalled = 0
  /// Each `finished` event: how the operation ended and how many waiters it reached.
  var finished: [(completion: OperationEvent.Completion, callerCount: Int)] = []

  var description: String {
    "enqueued \(enqueued), joined \(joined), started \(started), stalled \(stalled), "
      + "finished \(finished.map { "\($0.completion)×\($0.callerCount)" })"
  }
}

extension EventLog {
  /// The recorded events of `operation`, counted by kind.
  func counts(of operation: Operation) -> StressEventCounts {
    var counts = StressEventCounts()
    for event in events(of: ObjectIdentifier(operation)) {
      switch event.kind {
      case .enqueued: counts.enqueued += 1
      case .joined: counts.joined += 1
      case .started: counts.started += 1
      case .stalled: counts.stalled += 1
      case .retrying: break
      case .finished(let completion): counts.finished.append((completion, event.callerCount))
      }
    }
    return counts
  }
}
