/// Why a foreign operation (an `Operation` of your own, not a ``ConcurrentOperation``) could
/// not deliver a value.
public enum ForeignOperationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The operation finished, was not cancelled, and its
  /// ``ResultProducingOperation/outcome`` was nil.
  case noOutcome(operationName: String)
  /// The operation was not ready when its turn came (a dependency added after the request), so
  /// it was not started: starting an operation that is not ready traps inside Foundation.
  case notReady(operationName: String)
  /// The operation a request built around the manager's completion handler
  /// (`perform { complete in … }`) let that handler be freed without calling it.
  case completionHandlerFreed(operationName: String)

  /// The former name of ``completionHandlerFreed(operationName:)``. It makes the error,
  /// compares it, and matches it in a `switch` when the name is written out; a pattern that
  /// binds the name, and a `catch` clause, must use the new name: only a case can do either.
  @available(*, deprecated, renamed: "completionHandlerFreed(operationName:)")
  public static func completionHandlerReleased(operationName: String) -> Self {
    .completionHandlerFreed(operationName: operationName)
  }

  /// A one-line description such as `LegacyFetch finished without an outcome`.
  public var description: String {
    switch self {
    case .noOutcome(let name): "\(name) finished without an outcome"
    case .notReady(let name): "\(name) was not ready to start when its turn came"
    case .completionHandlerFreed(let name):
      "\(name) let its completion handler be freed without calling it"
    }
  }
}
