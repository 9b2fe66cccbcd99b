import Foundation

/// The adapter of each foreign instance in hand, by the instance's identity: the one
/// process-wide lookup of foreign work, so that an instance requested under two keys or
/// through two managers at once runs once.
///
/// A request finds the instance's adapter here and joins it while it is open. Once it has
/// closed (cancelled or settled) or joined other work, a newer request makes a new adapter the
/// instance's. Only the instance's adapter starts the foreign operation, and only once per
/// instance (`startClaimed`, handed on to a newer adapter): `Operation.start()` traps when
/// called twice. The entry keeps the adapter, and so the instance, so that its identity is not
/// reused meanwhile; the adapter that started the instance forgets it when released.
enum ForeignAdapters {
  private struct Entry {
    var adapter: Operation
    /// False once the adapter has closed or joined other work: a request replaces it.
    var isJoinable = true
    /// Someone called, or is calling, the instance's `start()` (to run it, or to finish it
    /// unrun).
    var startClaimed = false
  }

  private static let entries = Locked([ObjectIdentifier: Entry]())

  /// The instance's adapter while requests may join it.
  static func adapter(of foreign: Operation) -> Operation? {
    entries.withLock { entries in
      entries[ObjectIdentifier(foreign)].flatMap { $0.isJoinable ? $0.adapter : nil }
    }
  }

  /// Makes `adapter` the instance's unless a joinable one is there already; returns the
  /// instance's adapter.
  static func install(_ adapter: Operation, for foreign: Operation) -> Operation {
    entries.withLock { entries in
      let id = ObjectIdentifier(foreign)
      if let entry = entries[id], entry.isJoinable { return entry.adapter }
      let startClaimed = entries[id]?.startClaimed ?? false
      entries[id] = Entry(adapter: adapter, startClaimed: startClaimed)
      return adapter
    }
  }

  /// `adapter` closed or joined other work: the next request replaces it. It stays the
  /// instance's until then.
  static func retire(_ adapter: Operation, of foreign: Operation) {
    entries.withLock { entries in
      let id = ObjectIdentifier(foreign)
      if entries[id]?.adapter === adapter { entries[id]?.isJoinable = false }
    }
  }

  /// Whether `adapter` may start `foreign` now: it is the instance's, and nobody claimed that
  /// start before.
  static func claimStart(of foreign: Operation, by adapter: Operation) -> Bool {
    entries.withLock { entries in
      let id = ObjectIdentifier(foreign)
      guard entries[id]?.adapter === adapter, entries[id]?.startClaimed == false else {
        return false
      }
      entries[id]?.startClaimed = true
      return true
    }
  }

  /// `adapter` did not start `foreign` after all (it was not ready): its release finishes it
  /// unrun, unless another adapter took over meanwhile.
  static func yieldStart(of foreign: Operation, by adapter: Operation) {
    entries.withLock { entries in
      let id = ObjectIdentifier(foreign)
      if entries[id]?.adapter === adapter { entries[id]?.startClaimed = false }
    }
  }

  /// `adapter` was released. If it is the instance's: true when nobody started the instance,
  /// which the adapter must then finish unrun (and forget it after); otherwise the instance
  /// was started, and is forgotten now.
  static func claimStartOnRelease(of foreign: Operation, by adapter: Operation) -> Bool {
    entries.withLock { entries in
      let id = ObjectIdentifier(foreign)
      guard let entry = entries[id], entry.adapter === adapter else { return false }
      guard !entry.startClaimed else {
        entries[id] = nil
        return false
      }
      entries[id]?.startClaimed = true
      return true
    }
  }

  /// Forgets `foreign`, if `adapter` is still its adapter.
  static func forget(_ foreign: Operation, by adapter: Operation) {
    entries.withLock { entries in
      let id = ObjectIdentifier(foreign)
      if entries[id]?.adapter === adapter { entries[id] = nil }
    }
  }
}
