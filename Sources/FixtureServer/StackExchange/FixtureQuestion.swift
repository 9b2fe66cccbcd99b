/// One question as StackExchange API 2.3 `/questions` returns it with the default filter.
///
/// Optional properties are left out of the JSON when `nil`, as the real API does. Strings are
/// stored as the API sends them, HTML-escaped (`&quot;`, `&#39;`).
struct FixtureQuestion: Codable, Sendable {
  /// The `owner` object, a "shallow user".
  struct Owner: Codable, Sendable {
    var accountId: Int?
    var reputation: Int?
    var userId: Int?
    var userType: String
    var profileImage: String?
    var displayName: String
    var link: String?
  }

  var tags: [String]
  var owner: Owner
  var isAnswered: Bool
  var viewCount: Int
  var acceptedAnswerId: Int?
  var answerCount: Int
  var score: Int
  var lastActivityDate: Int
  var creationDate: Int
  var lastEditDate: Int?
  var closedDate: Int?
  var closedReason: String?
  var questionId: Int
  var contentLicense: String
  var link: String
  var title: String
}
