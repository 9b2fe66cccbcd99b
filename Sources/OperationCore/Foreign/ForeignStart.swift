import Foundation

/// Which host stands in for a foreign operation, so that one operation is started at most once
/// and only by the host that owns it.
///
/// Several hosts can hold the same operation: one whose callers all left before it started it,
/// and a newer request for the same instance; two requests for one instance under different
/// keys; a host built for a request that then joined work in flight. The first host owns the
/// operation until it finishes. Only the owner starts it (`Operation.start()` traps when called
/// on an operation already starting), and only the owner, when it finishes without having
/// started it, cancels and starts it so that it finishes as its queue would have made it. The
/// others wait for its finish through their watch; one whose turn comes after the owner let go
/// takes the operation over.
enum ForeignStart {
  private struct Entry {
    var owner: ObjectIdentifier
    /// A start is under way: nobody else may start the operation meanwhile.
    var isStarting = false
  }

  /// Foreign operations held by a host, by identity.
  private static let entries = Locked([ObjectIdentifier: Entry]())

  /// `host` stands in for `operation`: it owns it unless another host does.
  static func adopt(_ operation: Operation, by host: AnyObject) {
    entries.withLock { entries in
      let id = ObjectIdentifier(operation)
      if entries[id] == nil { entries[id] = Entry(owner: ObjectIdentifier(host)) }
    }
  }

  /// `host` was dropped before it was enqueued (its request joined work in flight): it lets
  /// `operation` go if it owned it.
  static func abandon(_ operation: Operation, by host: AnyObject) {
    entries.withLock { entries in
      let id = ObjectIdentifier(operation)
      if entries[id]?.owner == ObjectIdentifier(host) { entries[id] = nil }
    }
  }

  /// Starts `operation` for `host` unless another host owns it, a start is under way, or it
  /// is finished, executing or not ready. A host finding the operation let go takes it over.
  static func start(_ operation: Operation, by host: AnyObject) {
    guard claimStart(operation, by: host, takingOver: true) else { return }
    defer { endStart(operation) }
    guard !operation.isFinished, !operation.isExecuting, operation.isReady else { return }
    operation.start()
  }

  /// `host` finished. If it still owns `operation` it gives it up, and an operation it never
  /// started (the host was cancelled while pending, or the operation was not ready) is
  /// cancelled and, if it can be, started: a cancelled operation finishes once started.
  static func release(_ operation: Operation, by host: AnyObject) {
    guard claimStart(operation, by: host, takingOver: false) else { return }
    defer {
      entries.withLock { entries in
        let id = ObjectIdentifier(operation)
        if entries[id]?.owner == ObjectIdentifier(host) { entries[id] = nil }
      }
    }
    guard !operation.isFinished, !operation.isExecuting else {
      endStart(operation)
      return
    }
    operation.cancel()
    if operation.isReady, !operation.isFinished, !operation.isExecuting { operation.start() }
    endStart(operation)
  }

  private static func claimStart(
    _ operation: Operation, by host: AnyObject, takingOver: Bool
  ) -> Bool {
    entries.withLock { entries in
      let id = ObjectIdentifier(operation)
      guard let entry = entries[id] else {
        guard takingOver else { return false }
        entries[id] = Entry(owner: ObjectIdentifier(host), isStarting: true)
        return true
      }
      guard entry.owner == ObjectIdentifier(host), !entry.isStarting else { return false }
      entries[id]?.isStarting = true
      return true
    }
  }

  private static func endStart(_ operation: Operation) {
    entries.withLock { $0[ObjectIdentifier(operation)]?.isStarting = false }
  }
}
