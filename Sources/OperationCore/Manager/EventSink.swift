/// Where a subscription's events go.
package protocol EventSink: AnyObject, Sendable {
  /// Takes one event, built by calling `makeEvent` (if the sink still keeps events: building
  /// one costs about as much as keeping it, and the sink builds it where it keeps it). A plain
  /// closure, not an autoclosure: the audience passes its own on without wrapping it again.
  /// Called under the publishing operation's lock: only buffer it, never call out; return what
  /// must happen once the lock is unlocked (resuming a waiting consumer, say), if anything.
  func receive(_ makeEvent: () -> OperationEvent) -> (any EventWake)?
  /// The hub has gone: no event follows.
  func finish()
}

/// A sink made of two closures.
final class ClosureSink: EventSink {
  private let onEvent: @Sendable (OperationEvent) -> Void
  private let onFinish: @Sendable () -> Void

  init(
    receive: @escaping @Sendable (OperationEvent) -> Void, finish: @escaping @Sendable () -> Void
  ) {
    onEvent = receive
    onFinish = finish
  }

  func receive(_ makeEvent: () -> OperationEvent) -> (any EventWake)? {
    onEvent(makeEvent())
    return nil
  }
  func finish() { onFinish() }
}
