import OperationCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Result where Failure == any Error {
  /// The failure as a `NetworkingError`, or nil.
  var networkingError: NetworkingError? {
    guard case .failure(let error) = self else { return nil }
    return error as? NetworkingError
  }
}
