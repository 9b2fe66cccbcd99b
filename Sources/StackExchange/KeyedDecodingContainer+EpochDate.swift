import Foundation

extension KeyedDecodingContainer {
  /// Decodes a Unix timestamp (whole seconds since 1970-01-01 UTC, as the StackExchange API
  /// sends every date) into a `Date`, independently of the decoder's `dateDecodingStrategy`.
  func decodeEpochDate(forKey key: Key) throws -> Date {
    Date(timeIntervalSince1970: TimeInterval(try decode(Int64.self, forKey: key)))
  }

  /// Like `decodeEpochDate(forKey:)`, but returns `nil` when the key is absent or `null`.
  func decodeEpochDateIfPresent(forKey key: Key) throws -> Date? {
    try decodeIfPresent(Int64.self, forKey: key).map {
      Date(timeIntervalSince1970: TimeInterval($0))
    }
  }
}
