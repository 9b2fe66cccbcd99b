import Foundation

extension StackExchangeFixture {
  /// The common wrapper of a successful response.
  struct QuestionsPage: Encodable {
    var items: [FixtureQuestion]
    var hasMore: Bool
    var quotaMax: Int
    var quotaRemaining: Int
    var backoff: Int?
  }

  /// The body of an error response.
  struct ErrorBody: Encodable {
    var errorId: Int
    var errorMessage: String
    var errorName: String
  }

  /// Maps a `sort` parameter to the date or score it orders by.
  static func sortKey(named name: String) -> KeyPath<FixtureQuestion, Int>? {
    switch name {
    case "activity": \.lastActivityDate
    case "creation": \.creationDate
    case "votes": \.score
    default: nil
    }
  }

  /// Parses an integer parameter; `nil` when present but not an integer within `range`.
  static func integer(_ text: String?, default defaultValue: Int, in range: ClosedRange<Int>)
    -> Int?
  {
    guard let text else { return defaultValue }
    guard let value = Int(text), range.contains(value) else { return nil }
    return value
  }

  /// A 400 `bad_parameter` error, as the API sends for a missing or invalid parameter.
  static func badParameter(_ message: String) -> FixtureResponse {
    error(400, name: "bad_parameter", message: message)
  }

  /// An error response; like the real API it uses status 400 for any `error_id` other than 404.
  static func error(_ id: Int, name: String, message: String) -> FixtureResponse {
    gzipJSON(
      ErrorBody(errorId: id, errorMessage: message, errorName: name), status: id == 404 ? 404 : 400)
  }

  /// Encodes `value` with snake_case keys, as gzip-compressed JSON.
  static func gzipJSON(_ value: some Encodable, status: Int) -> FixtureResponse {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding plain structs of strings, integers and booleans cannot fail.
    let data = try! encoder.encode(value)
    return .json(data, status: status, contentEncoding: .gzip)
  }
}
