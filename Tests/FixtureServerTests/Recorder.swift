import Foundation

/// Collects values from responder threads for a test to inspect.
// State lives in `values`, guarded by its lock.
final class Recorder<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [Value] = []

  /// Appends `value`.
  func record(_ value: Value) {
    lock.withLock { values.append(value) }
  }

  /// Everything recorded so far.
  var all: [Value] { lock.withLock { values } }
}
