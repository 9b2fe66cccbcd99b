import Dispatch

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
