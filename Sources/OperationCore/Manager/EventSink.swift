/// Where a subscription's events go.
package protocol EventSink: AnyObject, Sendable {
  /// Takes one event. Called under the publishing operation's lock: only buffer it, never
  /// call out.
  func receive(_ event: OperationEvent)
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

  func receive(_ event: OperationEvent) { onEvent(event) }
  func finish() { onFinish() }
}
