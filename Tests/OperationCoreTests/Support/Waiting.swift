import Dispatch
import Foundation
import OperationCore

/// Polls `condition` until it holds or `timeout` passes; returns its last value.
///
/// Only for "eventually" facts that have no event to wait on, such as a queue draining or an
/// object being deallocated.
func eventually(
  timeout: Duration = .seconds(30), _ condition: @Sendable () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    if ContinuousClock.now >= deadline { return false }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}

extension OperationQueueManager {
  /// Waits until every operation enqueued through the manager has finished; false if
  /// `timeout` passed first.
  func waitUntilIdle(timeout: Duration = .seconds(30)) async -> Bool {
    await eventually(timeout: timeout) { isIdle }
  }
}

/// Holds an object weakly, to observe its deallocation.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
  weak let object: Object?

  init(_ object: Object) { self.object = object }
}

/// A dispatch queue that can tell whether the current code runs on it.
final class TaggedQueue: @unchecked Sendable {
  // Immutable after init; `DispatchSpecificKey` is not Sendable but is only read.
  let queue: DispatchQueue
  private let key = DispatchSpecificKey<String>()
  let label: String

  init(_ label: String) {
    self.label = label
    queue = DispatchQueue(label: label)
    queue.setSpecific(key: key, value: label)
  }

  /// Whether the caller runs on this queue.
  var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == label }
}
