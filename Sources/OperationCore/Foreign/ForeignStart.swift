import Foundation

/// Starts foreign operations on behalf of hosts, at most one start of an operation at a time.
///
/// Two hosts can hold the same operation (one cancelled before it started it, a new request
/// for the same instance after that), and `Operation.start()` traps when called on an operation
/// already starting. The check and the start happen while the operation is claimed here; a
/// second start then sees it executing or finished and does nothing.
enum ForeignStart {
  /// Operations being started right now.
  private static let starting = Locked(Set<ObjectIdentifier>())

  /// Starts `operation` unless it is finished, executing, not ready, or being started by
  /// someone else here; returns whether it was started.
  @discardableResult
  static func start(_ operation: Operation) -> Bool {
    let id = ObjectIdentifier(operation)
    guard starting.withLock({ $0.insert(id).inserted }) else { return false }
    defer { _ = starting.withLock { $0.remove(id) } }
    guard !operation.isFinished, !operation.isExecuting, operation.isReady else { return false }
    operation.start()
    return true
  }
}
