extension QuestionsQuery {
  /// The API's `order` parameter.
  public enum Order: String, Sendable, Hashable, CaseIterable {
    /// Highest first (`desc`, the API's default).
    case descending = "desc"
    /// Lowest first (`asc`).
    case ascending = "asc"
  }
}
