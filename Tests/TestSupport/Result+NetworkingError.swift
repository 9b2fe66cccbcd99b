import OperationNetworking

extension Result where Failure == any Error {
  /// The failure as a `NetworkingError`, or nil.
  public var networkingError: NetworkingError? {
    guard case .failure(let error) = self else { return nil }
    return error as? NetworkingError
  }
}
