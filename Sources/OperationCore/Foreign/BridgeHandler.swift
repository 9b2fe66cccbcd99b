import LockedValue

/// The completion handler a manager hands to a foreign operation it builds for a request
/// (`perform { complete in LegacyFetch(completionHandler: complete) }`): what it receives first
/// settles the operation's adapter, whenever it comes (before the operation reports finished,
/// after, or later on another queue); later calls are ignored.
///
/// An operation that finishes without calling it is noticed when the handler is released
/// uncalled: the adapter holds the operation only until it has finished, so once nothing else
/// holds the operation (and so its handler), the handler settles the adapter with
/// ``ForeignOperationError/completionHandlerReleased(operationName:)``. An operation that
/// something else keeps alive keeps its callers waiting until it is released (or until they
/// leave: cancellation, deadline), and its adapter's queue slot until then.
final class BridgeHandler<Value: Sendable>: Sendable {
  private enum State: Sendable {
    /// No adapter yet; what the handler received, if it was called already.
    case unattached(ErasedOutcome?)
    /// Waiting for the call, to settle `adapter`.
    case attached(ConcurrentOperation<Value, any Error>)
    /// Called, and the outcome handed over: the handler keeps no adapter.
    case called
  }

  private let state = Locked(State.unattached(nil))

  /// The handler to give the operation.
  var complete: @Sendable (Result<Value, any Error>) -> Void {
    { [self] result in receive(.delivered(result)) }
  }

  /// Settles the adapter with `outcome`, if the handler was not called before.
  private func receive(_ outcome: ErasedOutcome) {
    let adapter = state.withLock { state -> ConcurrentOperation<Value, any Error>? in
      switch state {
      case .unattached(nil):
        state = .unattached(outcome)
        return nil
      case .attached(let adapter):
        state = .called
        return adapter
      case .unattached, .called:
        return nil
      }
    }
    adapter?.settle(erased: outcome)
  }

  /// The adapter doing the work is known: settled at once if the handler was called already.
  func attach(to adapter: ConcurrentOperation<Value, any Error>) {
    let early = state.withLock { state -> ErasedOutcome? in
      guard case .unattached(let outcome) = state else { return nil }
      state = outcome == nil ? .attached(adapter) : .called
      return outcome
    }
    if let early { adapter.settle(erased: early) }
  }

  deinit {
    guard case .attached(let adapter) = state.withLock({ $0 }) else { return }
    adapter.settle(
      erased: .failure(
        ForeignOperationError.completionHandlerReleased(operationName: adapter.name ?? "")))
  }
}
