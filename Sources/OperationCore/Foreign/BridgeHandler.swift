import LockedValue

/// The completion handler a manager hands to a foreign operation it builds for a request
/// (`perform { complete in LegacyFetch(completionHandler: complete) }`): what it receives first,
/// whenever it comes, settles the adapter. Freed uncalled (the adapter holds the operation
/// only until it has finished), it settles it with
/// ``ForeignOperationError/completionHandlerFreed(operationName:)``.
final class BridgeHandler<Value: Sendable>: Sendable {
  typealias Adapter = ConcurrentOperation<any Sendable, any Error>
  /// The adapter once attached, and what the handler received first.
  private let state = Locked<(adapter: Adapter?, outcome: ErasedOutcome?)>((nil, nil))

  /// The handler to give the operation.
  var complete: @Sendable (Result<Value, any Error>) -> Void {
    { [self] result in
      let outcome = ErasedOutcome.delivered(result)
      // Called, the handler lets its adapter go: an operation that keeps its handler (and is
      // kept by its adapter until it finishes) then forms no cycle with it.
      let adapter = state.withLock { state -> Adapter? in
        guard state.outcome == nil else { return nil }
        state.outcome = outcome
        defer { state.adapter = nil }
        return state.adapter
      }
      adapter?.settle(erased: outcome)
    }
  }

  /// The adapter doing the work is known: settled at once if the handler was called already.
  func attach(to adapter: Adapter) {
    let early = state.withLock { state -> ErasedOutcome? in
      if state.outcome == nil { state.adapter = adapter }
      return state.outcome
    }
    if let early { adapter.settle(erased: early) }
  }

  deinit {
    guard case (let adapter?, nil) = state.withLock({ $0 }) else { return }
    let error = ForeignOperationError.completionHandlerFreed(operationName: adapter.name ?? "")
    adapter.settle(erased: .failure(error))
  }
}
