extension QuestionsQuery {
  /// The API's `sort` parameter for `/questions`.
  public enum Sort: String, Sendable, Hashable, CaseIterable {
    /// By last activity date (`activity`, the API's default).
    case activity
    /// By creation date (`creation`).
    case creation
    /// By score (`votes`).
    case votes
    /// By the site's current "hot" formula (`hot`).
    case hot
    /// By this week's "hot" formula (`week`).
    case week
    /// By this month's "hot" formula (`month`).
    case month
  }
}
