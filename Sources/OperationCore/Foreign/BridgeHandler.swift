import LockedValue

/// The completion handler a manager hands to a foreign operation it builds for a request
/// (`perform { complete in LegacyFetch(completionHandler: complete) }`): what it receives first
/// settles the adapter, whenever it comes; later calls are ignored. Released uncalled (the adapter
/// holds the operation only until it has finished), it settles the adapter with
/// ``ForeignOperationError/completionHandlerReleased(operationName:)``.
final class BridgeHandler<Value: Sendable>: Sendable {
  private enum State {
    /// No adapter yet; what the handler received, if it was called already.
    case unattached(ErasedOutcome?)
    case attached(ConcurrentOperation<any Sendable, any Error>)
    /// Called, and the outcome handed over.
    case called
  }

  private let state = Locked(State.unattached(nil))

  /// The handler to give the operation.
  var complete: @Sendable (Result<Value, any Error>) -> Void {
    { [self] result in
      let outcome = ErasedOutcome.delivered(result)
      let adapter = state.withLock { state -> ConcurrentOperation<any Sendable, any Error>? in
        switch state {
        case .unattached(nil): state = .unattached(outcome)
        case .attached(let adapter):
          state = .called
          return adapter
        case .unattached, .called: break
        }
        return nil
      }
      adapter?.settle(erased: outcome)
    }
  }

  /// The adapter doing the work is known: settled at once if the handler was called already.
  func attach(to adapter: ConcurrentOperation<any Sendable, any Error>) {
    let early = state.withLock { state -> ErasedOutcome? in
      guard case .unattached(let outcome) = state else { return nil }
      state = outcome == nil ? .attached(adapter) : .called
      return outcome
    }
    if let early { adapter.settle(erased: early) }
  }

  deinit {
    guard case .attached(let adapter) = state.withLock({ $0 }) else { return }
    let name = adapter.name ?? ""
    adapter.settle(
      erased: .failure(ForeignOperationError.completionHandlerReleased(operationName: name)))
  }
}
