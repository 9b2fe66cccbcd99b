import AsyncBridge
import LockedValue
import OperationCore
import TestSupport

/// Collects a manager's events from the moment it is made.
final class EventRecorder: Sendable {
  private let events = Locked<[OperationEvent]>([])
  private let task: Task<Void, Never>

  init(_ manager: OperationQueueManager) {
    let stream = manager.makeEvents(bufferSize: 100_000)
    let events = self.events
    task = Task {
      for await event in stream { events.withLock { $0.append(event) } }
    }
  }

  deinit { task.cancel() }

  /// The events so far.
  var recorded: [OperationEvent] { events.withLock { $0 } }

  /// Waits (polling, bounded) until `count` recorded events satisfy `predicate`.
  func wait(
    for count: Int = 1, within timeout: Duration = .seconds(30),
    where predicate: @escaping @Sendable (OperationEvent) -> Bool
  ) async -> Bool {
    await eventually(within: timeout) { recorded.filter(predicate).count >= count }
  }
}

extension OperationEvent.Kind {
  /// Whether this is the `joined` event.
  var isJoined: Bool {
    if case .joined = self { return true }
    return false
  }
}

extension OperationEvent.Kind {
  /// A short name: `enqueued`, `joined`, `started`, `finished(success)` and so on.
  var shortName: String {
    switch self {
    case .finished(let completion): "finished(\(completion))"
    default: "\(self)".components(separatedBy: "(").first ?? "\(self)"
    }
  }
}
