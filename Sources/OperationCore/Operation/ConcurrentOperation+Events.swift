import Foundation

// Publishing an operation's lifecycle events to its audience, under its lock.
extension ConcurrentOperation {
  /// Publishes the events `action` carries, in order. Called under the lock.
  func publishEvents(
    of action: OperationStateMachine.Action, in state: inout OperationStateMachine
  ) -> EventWakes {
    switch action {
    case .publish(let event), .registered(_, _, let event?), .run(_, let event?),
      .deliver(_, let event?), .left(_, _, let event?, _):
      return publish(event, in: &state)
    case .announce(let enqueued, let later):
      var wakes = publish(enqueued, in: &state)
      for event in later { wakes.add(publish(event, in: &state)) }
      return wakes
    case .none, .registered, .refused, .resumeAtOnce, .run, .deliver, .left, .release:
      return EventWakes()
    }
  }

  /// Hands `event` to the operation's audience. Called under the lock: that keeps this
  /// operation's events in the order they were decided. Subscribers only buffer the event; the
  /// wakes they ask for are returned, to run once the lock is unlocked.
  func publish(
    _ event: OperationStateMachine.DecidedEvent, in state: inout OperationStateMachine
  ) -> EventWakes {
    // Read in place (a copy of the audience would retain it); the terminal event takes it out.
    if event.isTerminal {
      return state.takeEventAudience()?.publish(event, of: self, key: coalescingKey)
        ?? EventWakes()
    }
    return state.eventAudience?.publish(event, of: self, key: coalescingKey) ?? EventWakes()
  }
}
