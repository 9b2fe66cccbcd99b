import Foundation
import LockedValue

/// Which host stands in for a foreign operation, so that one operation is started at most once
/// and only by the host that owns it.
///
/// A request for an instance that a host owns joins that host, whatever its key or manager
/// (see ``owner(of:)``). Several hosts can still hold the same operation: one whose callers all
/// left before it started it, and a newer request for the same instance; two requests for one
/// instance under different keys or managers that race, both building a host before either is
/// enqueued. The first host a manager enqueues owns the operation until it finishes (a host
/// whose request joined work in flight is never enqueued, and never owns it). Only the owner
/// starts it (`Operation.start()` traps when called on an operation already starting); the
/// others wait for its finish through their watch. While one of them still waits, the
/// operation is not cancelled for the sake of a host whose callers left
/// (``isWanted(_:byOtherThan:)``). An owner that finishes without having started it starts it
/// for a host still waiting, if it is ready; otherwise it cancels and starts it, so that it
/// finishes as its queue would have made it. Nobody takes over from an owner that let go: by
/// then the operation has finished, or runs, or was cancelled and could not be started.
enum ForeignStart {
  private struct Entry {
    var owner: ObjectIdentifier
    /// The owner itself, for requests that find the operation through it.
    weak var host: Operation?
    var stage = Stage.idle
    /// The other hosts enqueued for the operation, which wait for the owner's run: two
    /// requests that raced each built one (see ``isWanted(_:byOtherThan:)``).
    var others: [OtherHost] = []
  }

  private struct OtherHost {
    weak var host: Operation?
  }

  private enum Stage {
    case idle
    /// A start is under way: nobody else may start the operation meanwhile. `thenRelease`
    /// once its owner finished during the start (a synchronous operation finishes inside it).
    case starting(thenRelease: Bool)
  }

  /// What `release` found.
  private enum Release {
    /// Another host owns the operation, or nobody does: nothing to do.
    case notOwner
    /// The owner's own start is under way; it lets go when the start returns.
    case deferred
    /// The owner may settle the operation's fate, then let go.
    case owned
  }

  /// Foreign operations held by a host, by identity.
  private static let entries = Locked([ObjectIdentifier: Entry]())

  /// `host` stands in for `operation`: it owns it unless another host does.
  static func adopt(_ operation: Operation, by host: Operation) {
    entries.withLock { entries in
      let id = ObjectIdentifier(operation)
      if entries[id] == nil {
        entries[id] = Entry(owner: ObjectIdentifier(host), host: host)
      } else {
        entries[id]?.others.append(OtherHost(host: host))
      }
    }
  }

  /// Whether a host other than `host` still waits for `operation`'s outcome (it is neither
  /// cancelled nor finished): then `host`'s cancellation, its callers having left, must not
  /// cancel the operation under that host's callers.
  static func isWanted(_ operation: Operation, byOtherThan host: Operation) -> Bool {
    let hosts = entries.withLock { entries -> [Operation] in
      guard let entry = entries[ObjectIdentifier(operation)] else { return [] }
      return ([entry.host] + entry.others.map(\.host)).compactMap { $0 }
    }
    // Read outside the lock: a host's state has a lock of its own.
    return hosts.contains { $0 !== host && !$0.isCancelled && !$0.isFinished }
  }

  /// The host that owns `operation` now, if any.
  static func owner(of operation: Operation) -> Operation? {
    entries.withLock { $0[ObjectIdentifier(operation)]?.host }
  }

  /// Starts `operation` for `host` unless `host` does not own it (any more), a start is under
  /// way, or it is finished, executing or not ready.
  static func start(_ operation: Operation, by host: AnyObject) {
    let id = ObjectIdentifier(operation)
    let claimed = entries.withLock { entries -> Bool in
      guard let entry = entries[id], entry.owner == ObjectIdentifier(host), case .idle = entry.stage
      else { return false }
      entries[id]?.stage = .starting(thenRelease: false)
      return true
    }
    guard claimed else { return }
    if !operation.isFinished, !operation.isExecuting, operation.isReady { operation.start() }
    entries.withLock { entries in
      guard case .starting(let thenRelease)? = entries[id]?.stage else { return }
      if thenRelease { entries[id] = nil } else { entries[id]?.stage = .idle }
    }
  }

  /// Finishes `operation` without running it, as its queue would once it is cancelled: cancels
  /// it and, if it can be, starts it (a cancelled operation finishes once started). Finished
  /// before its dependencies, it is then detached from them, so that it may be released first.
  static func finishUnrun(_ operation: Operation) {
    guard !operation.isFinished, !operation.isExecuting else { return }
    operation.cancel()
    if operation.isReady, !operation.isFinished, !operation.isExecuting { operation.start() }
    if operation.isFinished { operation.detachFromUnfinishedDependencies() }
  }

  /// `host` finished. If it still owns `operation` it lets it go. An operation it never started
  /// (the host was cancelled while pending, or the operation was not ready) is started for
  /// another host that still waits for it, if one does and it is ready; otherwise it is
  /// cancelled and, if it can be, started: a cancelled operation finishes once started.
  static func release(_ operation: Operation, by host: Operation) {
    let id = ObjectIdentifier(operation)
    let release = entries.withLock { entries -> Release in
      guard let entry = entries[id], entry.owner == ObjectIdentifier(host) else {
        return .notOwner
      }
      switch entry.stage {
      case .starting:
        entries[id]?.stage = .starting(thenRelease: true)
        return .deferred
      case .idle:
        entries[id]?.stage = .starting(thenRelease: true)
        return .owned
      }
    }
    guard case .owned = release else { return }
    if !operation.isFinished, !operation.isExecuting {
      if isWanted(operation, byOtherThan: host), operation.isReady {
        // Its run is the waiting host's, whose watch settles it when it finishes.
        operation.start()
      } else {
        finishUnrun(operation)
      }
    }
    entries.withLock { entries in
      if entries[id]?.owner == ObjectIdentifier(host) { entries[id] = nil }
    }
  }
}
