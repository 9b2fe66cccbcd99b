extension Result {
  /// The value, or nil on failure.
  public var value: Success? { try? get() }

  /// The failure, or nil on success.
  public var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

extension Result where Failure == any Error {
  /// Whether this is a failure with `CancellationError`.
  public var isCancellation: Bool { failure is CancellationError }
}
