import OperationCore

/// A weak reference that tasks can share, to check that objects are released.
final class WeakReference<Object: AnyObject & Sendable>: Sendable {
  private struct Storage {
    weak var object: Object?
  }

  private let storage: Locked<Storage>

  init(_ object: Object) {
    storage = Locked(Storage(object: object))
  }

  /// Whether the object has been released.
  var isReleased: Bool { storage.withLock { $0.object == nil } }
}
