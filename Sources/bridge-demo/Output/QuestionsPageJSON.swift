import Foundation
import StackExchange

/// A page as `bridge-demo questions --json` prints it: one object shaped like the API's own
/// response wrapper, `items` plus the fields a script needs to pace itself. As in the API,
/// `backoff` (the seconds to wait before the next `/questions` call on the site) is present
/// only when the API sent one. With `--pages`, each page is one line and carries its `page`
/// number too.
///
/// ```
/// {"backoff": 10, "has_more": true, "items": [...], "quota_max": 300, "quota_remaining": 299}
/// {"has_more":true,"items":[...],"page":1,"quota_max":300,"quota_remaining":299}
/// ```
struct QuestionsPageJSON: Encodable {
  // Encoded with `.convertToSnakeCase`: `hasMore` is written as `has_more`.
  let items: [QuestionJSON]
  let hasMore: Bool
  let quotaMax: Int
  let quotaRemaining: Int
  let backoff: Int?
  let page: Int?

  /// The printable form of `page`, numbered `number` when it is one of several.
  init(_ page: QuestionsPage, number: Int? = nil) {
    items = page.items.map(QuestionJSON.init)
    hasMore = page.hasMore
    quotaMax = page.quotaMax
    quotaRemaining = page.quotaRemaining
    backoff = page.backoff
    self.page = number
  }

  /// `page` as one JSON object, pretty-printed with sorted keys.
  static func text(_ page: QuestionsPage) throws -> String {
    try encode(QuestionsPageJSON(page), formatting: .prettyPrinted)
  }

  /// `fetched` as one JSON object on one line, with sorted keys and its `page` number.
  static func line(_ fetched: FetchedQuestionsPage) throws -> String {
    try encode(QuestionsPageJSON(fetched.page, number: fetched.number), formatting: [])
  }

  private static func encode(
    _ value: QuestionsPageJSON, formatting: JSONEncoder.OutputFormatting
  ) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = formatting.union([.sortedKeys, .withoutEscapingSlashes])
    encoder.keyEncodingStrategy = .convertToSnakeCase
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }
}
