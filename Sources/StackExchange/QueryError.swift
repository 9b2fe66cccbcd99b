import Foundation

/// Why a `QuestionsQuery` cannot be turned into a request URL.
public enum QueryError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
  /// `site` is empty or only whitespace.
  case emptySite
  /// `pageSize` is outside 1...100; carries the rejected value.
  case pageSizeOutOfRange(Int)
  /// `page` is below 1; carries the rejected value.
  case pageOutOfRange(Int)
  /// A tag in `tagged` is empty or contains `;`, the API's tag separator; carries the tag.
  case invalidTag(String)
  /// `tagged` has more than 5 tags, for which the API returns no questions at all; carries the
  /// count.
  case tooManyTags(Int)
  /// The base URL is not an absolute `http`/`https` URL with a host; carries the URL.
  case invalidBaseURL(URL)

  /// A one-line explanation naming the offending value.
  public var description: String {
    switch self {
    case .emptySite:
      "site must not be empty (use an API site parameter such as \"stackoverflow\")"
    case .pageSizeOutOfRange(let pageSize):
      "pagesize must be between 1 and 100, got \(pageSize)"
    case .pageOutOfRange(let page):
      "page must be 1 or greater, got \(page)"
    case .invalidTag(let tag):
      "tag \"\(tag)\" is invalid: tags must not be empty or contain \";\""
    case .tooManyTags(let count):
      "at most 5 tags can be asked for together (the API answers more with no questions), got \(count)"
    case .invalidBaseURL(let url):
      "base URL \"\(url.absoluteString)\" must be an http or https URL with a host"
    }
  }

  /// Same as `description`, so `localizedDescription` is readable too.
  public var errorDescription: String? { description }
}
