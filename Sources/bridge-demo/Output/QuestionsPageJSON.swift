import Foundation
import StackExchange

/// A page as `bridge-demo questions --json` prints it: one object shaped like the API's own
/// response wrapper, `items` plus the fields a script needs to pace itself. As in the API,
/// `backoff` (the seconds to wait before the next `/questions` call on the site) is present
/// only when the API sent one.
///
/// ```
/// {"backoff": 10, "has_more": true, "items": [...], "quota_max": 300, "quota_remaining": 299}
/// ```
struct QuestionsPageJSON: Encodable {
  // Encoded with `.convertToSnakeCase`: `hasMore` is written as `has_more`.
  let items: [QuestionJSON]
  let hasMore: Bool
  let quotaMax: Int
  let quotaRemaining: Int
  let backoff: Int?

  /// The printable form of `page`.
  init(_ page: QuestionsPage) {
    items = page.items.map(QuestionJSON.init)
    hasMore = page.hasMore
    quotaMax = page.quotaMax
    quotaRemaining = page.quotaRemaining
    backoff = page.backoff
  }

  /// `page` as one JSON object, pretty-printed with sorted keys.
  static func text(_ page: QuestionsPage) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    return String(decoding: try encoder.encode(QuestionsPageJSON(page)), as: UTF8.self)
  }
}
