import Foundation
import LockedValue

/// The adapter of each foreign instance in hand, by the instance's identity: the one process-wide
/// lookup of foreign work, so that an instance requested under two keys or through two managers
/// at once runs once (`Operation.start()` traps when called twice). An entry (and the instance,
/// whose identity cannot be reused meanwhile) stays until the instance has finished, or until
/// the adapter that would start it is released.
enum ForeignAdapters {
  struct Entry {
    var adapter: ForeignAdapter
    /// False once the adapter closed or joined other work: the next request replaces it.
    var isJoinable = true
    /// The adapter joined other work: the instance, dropped, is left as it is (never started,
    /// never cancelled) unless a newer request's adapter runs it.
    var isDropped = false
    /// Someone called, or is calling, the instance's `start()` (to run it or finish it unrun).
    var startCalled = false
  }

  private static let entries = Locked([ObjectIdentifier: Entry]())

  /// The instance's joinable adapter, or the one `make` builds (outside the lock), installed.
  static func adapter(
    of foreign: Operation, orInstall make: () -> ForeignAdapter
  ) -> (ForeignAdapter, installed: Bool) {
    let id = ObjectIdentifier(foreign)
    if let entry = entries.withLock({ $0[id] }), entry.isJoinable { return (entry.adapter, false) }
    let new = make()
    return entries.withLock { entries in
      if let entry = entries[id], entry.isJoinable { return (entry.adapter, false) }
      entries[id] = Entry(adapter: new, startCalled: entries[id]?.startCalled ?? false)
      return (new, true)
    }
  }

  /// Changes the instance's entry with `body` (nil removes it) if `adapter` is the instance's.
  @discardableResult
  static func update<Value>(
    _ foreign: Operation, by adapter: ForeignAdapter, _ body: (inout Entry?) -> Value
  ) -> Value? {
    entries.withLock { entries in
      let id = ObjectIdentifier(foreign)
      return entries[id]?.adapter === adapter ? body(&entries[id]) : nil
    }
  }
}
