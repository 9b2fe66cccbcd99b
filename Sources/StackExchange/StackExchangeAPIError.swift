import Foundation

/// The error body the StackExchange API returns with a 4xx/5xx status, e.g.
/// `{"error_id": 400, "error_message": "site is required", "error_name": "bad_parameter"}`.
public struct StackExchangeAPIError: Error, Sendable, Decodable, Equatable, CustomStringConvertible,
  LocalizedError
{
  /// The numeric error id (e.g. 400, 502 for throttle violations).
  public let errorID: Int
  /// The human-readable explanation.
  public let errorMessage: String
  /// The machine-readable error name (e.g. `bad_parameter`, `throttle_violation`).
  public let errorName: String

  /// Creates an error value; normally values come from decoding an API error body.
  public init(errorID: Int, errorMessage: String, errorName: String) {
    self.errorID = errorID
    self.errorMessage = errorMessage
    self.errorName = errorName
  }

  /// One line for a CLI, e.g. `bad_parameter (400): site is required`. Line breaks inside the
  /// message are replaced by spaces.
  public var description: String {
    let message = errorMessage.split(whereSeparator: \.isNewline).joined(separator: " ")
    return "\(errorName) (\(errorID)): \(message)"
  }

  /// Same as `description`, so `localizedDescription` is readable too.
  public var errorDescription: String? { description }

  private enum CodingKeys: String, CodingKey {
    case errorID = "error_id"
    case errorMessage = "error_message"
    case errorName = "error_name"
  }
}
