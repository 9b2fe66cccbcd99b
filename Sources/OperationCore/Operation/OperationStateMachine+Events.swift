import Foundation

// The lifecycle events an operation decides, and whether they go out yet.

extension OperationStateMachine {
  /// Whether the operation's lifecycle events go out yet, and to whom. Apart from
  /// ``Lifecycle``: the queue may start, and even release, an operation before the manager
  /// that claimed it has finished adding it, so every stage exists both before and after
  /// the `enqueued` event.
  enum Announcement {
    /// Nobody subscribed to the manager's events when it claimed the operation (or no manager
    /// did), or the terminal event is out: it publishes nothing.
    case silent
    /// A manager claimed the operation for `audience` and has not yet added it to its queue:
    /// `enqueued` and the events decided meanwhile (`later`, usually none) wait here, to go
    /// out in order once it has.
    case awaitingEnqueue(EventAudience, enqueued: DecidedEvent, later: [DecidedEvent])
    /// `enqueued` is out: events go out to `audience` as they are decided.
    case announced(EventAudience)
  }

  /// One lifecycle event, before the operation turns it into an ``OperationEvent`` for its
  /// audience. Its fields are laid out small (the kind last, in one byte): every action
  /// carries room for one, and a small action moves without a call to `memcpy`.
  struct DecidedEvent {
    let callerCount: Int
    var duration: Duration?
    let kind: Kind

    /// The kinds of event the lifecycle decides (a `retrying` event is the operation's own).
    enum Kind {
      case enqueued, joined, started, stalled
      case finished(OperationEvent.Completion)
    }

    init(kind: Kind, callerCount: Int, duration: Duration? = nil) {
      self.callerCount = callerCount
      self.duration = duration
      self.kind = kind
    }

    /// Whether this is the operation's last event (`finished`).
    var isTerminal: Bool {
      if case .finished = kind { true } else { false }
    }

    /// The public kind of this event.
    var operationEventKind: OperationEvent.Kind {
      switch kind {
      case .enqueued: .enqueued
      case .joined: .joined
      case .started: .started
      case .stalled: .stalled
      case .finished(let completion): .finished(completion)
      }
    }
  }
}
