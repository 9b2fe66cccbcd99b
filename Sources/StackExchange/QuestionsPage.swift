/// One page of a `/questions` response: the items plus the response wrapper's paging and
/// throttling fields.
public struct QuestionsPage: Sendable, Decodable, Equatable {
  /// The questions on this page.
  public let items: [Question]
  /// Whether more pages follow this one.
  public let hasMore: Bool
  /// The daily request quota of the caller.
  public let quotaMax: Int
  /// How many requests remain in today's quota.
  public let quotaRemaining: Int
  /// When present, the number of seconds the client must wait before calling the same method
  /// again.
  public let backoff: Int?

  private enum CodingKeys: String, CodingKey {
    case items
    case hasMore = "has_more"
    case quotaMax = "quota_max"
    case quotaRemaining = "quota_remaining"
    case backoff
  }
}
