import Foundation

/// An `Operation` of your own that exposes its outcome, so a manager can hand it to callers.
///
/// Adopt it retroactively on a legacy class, without changing how the class works:
///
/// ```swift
/// extension LegacyFetch: ResultProducingOperation {
///   var outcome: Result<Page, any Error>? { result }
/// }
/// let page = try await manager.perform(LegacyFetch(site: "stackoverflow"))
/// ```
///
/// The manager reads `outcome` once, after the operation reports `isFinished`, on one of Dispatch's
/// shared threads: keep it a read of a stored value. Nil reaches callers as
/// ``ForeignOperationError/noOutcome(operationName:)`` (`CancellationError` if cancelled), and a
/// `CancellationError` in it as cancellation.
public protocol ResultProducingOperation: Operation {
  /// The value the operation produces.
  associatedtype Output: Sendable
  /// The outcome once the operation has finished; nil if it finished without one.
  var outcome: Result<Output, any Error>? { get }
}

extension ResultProducingOperation {
  /// How the finished operation ended, as its callers receive it; and the type of its value.
  var erasedOutcome: ErasedOutcome {
    if let outcome { return .delivered(outcome) }
    return isCancelled
      ? .cancelled
      : .failure(ForeignOperationError.noOutcome(operationName: name ?? "\(Self.self)"))
  }
  static var outputType: Any.Type { Output.self }
}
