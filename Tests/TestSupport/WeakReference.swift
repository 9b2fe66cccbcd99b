import LockedValue
import OperationCore

/// A weak reference that tasks and threads can share, to check that objects are freed.
public final class WeakReference<Object: AnyObject>: Sendable {
  // Only ever checked for nil, never handed out, so it may cross threads whatever `Object` is.
  private struct Storage: @unchecked Sendable {
    weak var object: Object?
  }

  // The reference lives in `storage`, guarded by its lock.
  private let storage: Locked<Storage>

  /// Holds `object` weakly.
  public init(_ object: Object) {
    storage = Locked(Storage(object: object))
  }

  /// Whether the object has been freed.
  public var isFreed: Bool { storage.withLock { $0.object == nil } }
}
