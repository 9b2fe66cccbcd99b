import Foundation
import LockedValue

/// One step in the life of an operation enqueued through an ``OperationQueueManager``.
public struct OperationEvent: Sendable, CustomStringConvertible {
  /// What happened.
  public enum Kind: Sendable, Equatable {
    /// A new operation was added to the queue.
    case enqueued
    /// A request joined an operation already in flight instead of starting new work.
    case joined
    /// The queue started the operation.
    case started
    /// The operation's outcome is fixed: it goes to its waiters, who may still be receiving it
    /// when the event is read.
    case finished(Completion)
    /// The operation has been executing longer than the manager's `stallThreshold`.
    case stalled
    /// An attempt failed and the operation will try again after `delay` (a retry policy, as
    /// in `NetworkingOperation`). `attempt` counts the attempt that failed, from 1; the event's
    /// ``OperationEvent/failure`` describes what failed.
    case retrying(attempt: Int, delay: Duration)
  }

  /// How an operation ended.
  public enum Completion: Sendable, Equatable {
    /// It produced a value.
    case success
    /// It failed with its own error.
    case failure
    /// It was cancelled.
    case cancelled
    /// Its timeout expired.
    case timedOut
  }

  /// What happened.
  public let kind: Kind
  /// The operation's name, or its class name when it has none.
  public var operationName: String {
    switch name {
    case .given(let name): name
    case .className(let type): OperationClassNames.name(of: type)
    }
  }
  /// The operation's coalescing key, if it has one.
  public let key: CoalescingKey?
  /// Callers at that moment: after a join, the number now waiting; on finishing, the number
  /// the outcome goes to. (A completion handler, a plain `enqueue` and an awaiting task count
  /// one each; a dropped request that follows the work counts none.)
  public let callerCount: Int
  /// The former name of ``callerCount``.
  @available(*, deprecated, renamed: "callerCount")
  public var waiterCount: Int { callerCount }
  /// For `finished` and `stalled`: the time since the queue started the operation (nil if it
  /// never started).
  public let duration: Duration?
  /// Identifies the operation, to correlate events.
  public let operationID: ObjectIdentifier
  /// For `retrying`: what made the attempt fail; nil for other kinds.
  public let failure: String?
  /// Where ``operationName`` comes from: spelling out a class name costs more than publishing
  /// the event, so it is done only when somebody reads it.
  private let name: Name

  private enum Name: @unchecked Sendable {
    // A class object is immutable and may be shared across threads.
    case given(String)
    case className(AnyClass)
  }

  /// Creates an event.
  public init(
    kind: Kind, operationName: String, key: CoalescingKey?, callerCount: Int,
    duration: Duration?, operationID: ObjectIdentifier, failure: String? = nil
  ) {
    self.kind = kind
    self.name = .given(operationName)
    self.key = key
    self.callerCount = callerCount
    self.duration = duration
    self.operationID = operationID
    self.failure = failure
  }

  /// Creates an event: the former spelling of
  /// ``init(kind:operationName:key:callerCount:duration:operationID:failure:)``.
  @available(
    *, deprecated,
    renamed: "init(kind:operationName:key:callerCount:duration:operationID:failure:)"
  )
  public init(
    kind: Kind, operationName: String, key: CoalescingKey?, waiterCount: Int,
    duration: Duration?, operationID: ObjectIdentifier, failure: String? = nil
  ) {
    self.init(
      kind: kind, operationName: operationName, key: key, callerCount: waiterCount,
      duration: duration, operationID: operationID, failure: failure)
  }

  /// Creates the event of `operation`, named after it when it has a name, else after its
  /// class (spelled out only when read). The operation is borrowed, not retained
  /// (`__shared`: `borrowing` crashes the 6.3.1 compiler here).
  init(
    kind: Kind, operation: __shared Operation, key: CoalescingKey?, callerCount: Int,
    duration: Duration?, failure: String? = nil
  ) {
    self.kind = kind
    self.name = operation.name.map(Name.given) ?? .className(type(of: operation))
    self.key = key
    self.callerCount = callerCount
    self.duration = duration
    self.operationID = ObjectIdentifier(operation)
    self.failure = failure
  }

  /// A one-line description for logs.
  public var description: String {
    var text = "\(kind) \(operationName)"
    if let key { text += " key=\(key)" }
    text += " waiters=\(callerCount)"
    if let duration { text += " after \(duration)" }
    if let failure { text += " (\(failure))" }
    return text
  }
}

extension OperationEvent.Kind: CustomStringConvertible {
  /// The kind as a log shows it: `started`, `finished(success)`,
  /// `retrying(attempt: 1, delay: 0.5 seconds)`.
  public var description: String {
    switch self {
    case .enqueued: "enqueued"
    case .joined: "joined"
    case .started: "started"
    case .finished(let completion): "finished(\(completion))"
    case .stalled: "stalled"
    case .retrying(let attempt, let delay): "retrying(attempt: \(attempt), delay: \(delay))"
    }
  }
}

extension OperationEvent.Completion: CustomStringConvertible {
  /// The completion's name: `success`, `failure`, `cancelled` or `timedOut`.
  public var description: String {
    switch self {
    case .success: "success"
    case .failure: "failure"
    case .cancelled: "cancelled"
    case .timedOut: "timedOut"
    }
  }
}

/// Class names spelled out once per class: `String(describing:)` of a generic class
/// demangles its name, far too slow to repeat for every event read.
private enum OperationClassNames {
  private static let cache = Locked<[ObjectIdentifier: String]>([:])

  static func name(of type: AnyClass) -> String {
    let id = ObjectIdentifier(type)
    if let name = cache.withLock({ $0[id] }) { return name }
    let name = String(describing: type)
    cache.withLock { $0[id] = name }
    return name
  }
}
