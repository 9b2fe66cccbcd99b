import Foundation
import StackExchange

/// A page as `bridge-demo questions --json` prints it: one object with the API's field names,
/// `items` plus the wrapper fields a script needs to pace itself. `backoff` is `null` when the
/// API sent none, else the seconds to wait before the next `/questions` call on the site.
///
/// ```
/// {"backoff": null, "has_more": true, "items": [...], "quota_max": 300, "quota_remaining": 299}
/// ```
struct QuestionsPageJSON: Encodable {
  let items: [QuestionJSON]
  let hasMore: Bool
  let quotaMax: Int
  let quotaRemaining: Int
  let backoff: Int?

  private enum CodingKeys: String, CodingKey {
    case items
    case hasMore = "has_more"
    case quotaMax = "quota_max"
    case quotaRemaining = "quota_remaining"
    case backoff
  }

  /// The printable form of `page`.
  init(_ page: QuestionsPage) {
    items = page.items.map(QuestionJSON.init)
    hasMore = page.hasMore
    quotaMax = page.quotaMax
    quotaRemaining = page.quotaRemaining
    backoff = page.backoff
  }

  /// Encodes every field, `backoff` as `null` when absent, so a script finds each key.
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(items, forKey: .items)
    try container.encode(hasMore, forKey: .hasMore)
    try container.encode(quotaMax, forKey: .quotaMax)
    try container.encode(quotaRemaining, forKey: .quotaRemaining)
    try container.encode(backoff, forKey: .backoff)
  }

  /// `page` as one JSON object, pretty-printed with sorted keys.
  static func text(_ page: QuestionsPage) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(QuestionsPageJSON(page)), as: UTF8.self)
  }
}
