/// One question as StackExchange API 2.3 `/questions` returns it with the default filter.
///
/// Optional properties are left out of the JSON when `nil`, as the real API does.
struct FixtureQuestion: Encodable, Sendable {
  /// The `owner` object, a "shallow user".
  struct Owner: Encodable, Sendable {
    var accountId: Int?
    var reputation: Int?
    var userId: Int?
    var userType: String
    var profileImage: String?
    var displayName: String
    var link: String?

    /// A registered user on Stack Overflow with the usual fields.
    static func registered(
      accountId: Int, reputation: Int, userId: Int, profileImage: String, displayName: String,
      slug: String
    ) -> Owner {
      Owner(
        accountId: accountId, reputation: reputation, userId: userId, userType: "registered",
        profileImage: profileImage, displayName: displayName,
        link: "https://stackoverflow.com/users/\(userId)/\(slug)")
    }

    /// The owner of a post whose account was deleted: only a type and a placeholder name.
    static func deleted(displayName: String) -> Owner {
      Owner(userType: "does_not_exist", displayName: displayName)
    }
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
