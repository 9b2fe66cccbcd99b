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
/// The manager reads `outcome` once, after the operation reports `isFinished`, on the thread
/// that noticed the finish. An operation that finishes with `outcome == nil` reaches its callers
/// as `CancellationError` when it was cancelled, and as ``ForeignOperationError/noOutcome(operationName:)``
/// otherwise; a `CancellationError` inside the outcome is reported as cancellation.
public protocol ResultProducingOperation: Operation {
  /// The value the operation produces.
  associatedtype Output: Sendable
  /// The outcome once the operation has finished; nil if it finished without one.
  var outcome: Result<Output, any Error>? { get }
}
