import OperationCore
import OperationNetworking

extension NetworkingError {
  /// The StackExchange API's error body, when this is a failing status whose body was one
  /// (`{"error_id": …, "error_message": …, "error_name": …}`); nil otherwise.
  public var stackExchangeAPIError: StackExchangeAPIError? {
    guard case .badStatus(_, let serverError?, _) = self else { return nil }
    return serverError as? StackExchangeAPIError
  }
}
