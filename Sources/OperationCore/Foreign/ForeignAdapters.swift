import Foundation
import LockedValue

/// The adapter of each foreign instance in hand, by the instance's identity: the one
/// process-wide lookup of foreign work, so that an instance requested under two keys or
/// through two managers at once runs once.
///
/// A request joins the instance's adapter through the adapter's own lock, claimed by a manager
/// or not, while it is open; once it has closed (cancelled or settled) or joined other work, a
/// newer request installs a new one. The request that installed an adapter joins it like any
/// other, then admits it; so whoever finds an adapter here finds it with at least one caller
/// until all of them have left, and then closed: never cancelled under a request that joined. Only the instance's
/// adapter starts the instance, and the instance is started once (`startClaimed` passes to a
/// newer adapter): `Operation.start()` traps when called twice. The entry keeps the adapter,
/// and so the instance, whose identity cannot be reused meanwhile; it goes when the adapter
/// that started the instance is released.
enum ForeignAdapters {
  struct Entry {
    var adapter: Operation
    /// False once the adapter closed or joined other work: a request replaces it.
    var isJoinable = true
    /// Someone called, or is calling, the instance's `start()` (to run it or finish it unrun).
    var startClaimed = false
  }

  private static let entries = Locked([ObjectIdentifier: Entry]())

  /// The instance's adapter while requests may join it.
  static func adapter(of foreign: Operation) -> Operation? {
    entries.withLock { $0[ObjectIdentifier(foreign)].flatMap { $0.isJoinable ? $0.adapter : nil } }
  }

  /// Makes `adapter` the instance's unless a joinable one is there; returns the instance's.
  static func install(_ adapter: Operation, for foreign: Operation) -> Operation {
    entries.withLock { entries in
      let id = ObjectIdentifier(foreign)
      if let entry = entries[id], entry.isJoinable { return entry.adapter }
      entries[id] = Entry(adapter: adapter, startClaimed: entries[id]?.startClaimed ?? false)
      return adapter
    }
  }

  /// Changes the instance's entry with `body` if `adapter` is the instance's (nil removes it);
  /// returns what `body` returns, or false.
  @discardableResult
  static func update(
    _ foreign: Operation, by adapter: Operation, _ body: (inout Entry?) -> Bool = { _ in true }
  ) -> Bool {
    entries.withLock { entries in
      let id = ObjectIdentifier(foreign)
      guard entries[id]?.adapter === adapter else { return false }
      return body(&entries[id])
    }
  }

  /// `adapter` closed or joined other work: the next request replaces it.
  static func retire(_ adapter: Operation, of foreign: Operation) {
    update(foreign, by: adapter) {
      $0?.isJoinable = false; return true
    }
  }

  /// Whether `adapter` may start `foreign` now: it is the instance's, and nobody claimed that.
  static func claimStart(of foreign: Operation, by adapter: Operation) -> Bool {
    update(foreign, by: adapter) { entry in
      guard entry?.startClaimed == false else { return false }
      entry?.startClaimed = true
      return true
    }
  }
}
