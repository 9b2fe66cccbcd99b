import Foundation

/// A question as returned by the StackExchange API 2.3 `/questions` method with the default filter.
///
/// Decodes with a plain `JSONDecoder()`: the coding keys are explicit and dates are decoded from
/// Unix epoch seconds by the type itself, whatever the decoder's date strategy. Fields the API
/// documents as "may be absent" are optional. `title` is kept exactly as sent (HTML-escaped);
/// use `displayTitle` for presentation.
public struct Question: Sendable, Decodable, Equatable, Identifiable {
  /// The question's id on its site (`question_id`).
  public let questionID: Int
  /// The title as sent by the API, still HTML-escaped (e.g. `&quot;`).
  public let title: String
  /// The question's page on the site.
  public let link: URL
  /// The question's tags, in the order the API lists them.
  public let tags: [String]
  /// Up votes minus down votes.
  public let score: Int
  /// Number of (undeleted) answers.
  public let answerCount: Int
  /// Number of times the question was viewed.
  public let viewCount: Int
  /// Whether the question has an accepted answer or an answer with a positive score.
  public let isAnswered: Bool
  /// When the question was asked.
  public let creationDate: Date
  /// When the question, or one of its answers or comments, last changed.
  public let lastActivityDate: Date
  /// The license of the question's content, e.g. `CC BY-SA 4.0`; the API may omit it.
  public let contentLicense: String?
  /// The author; the API may omit it.
  public let owner: QuestionOwner?
  /// The id of the accepted answer, if one was accepted.
  public let acceptedAnswerID: Int?
  /// When the question was last edited, if ever.
  public let lastEditDate: Date?
  /// When the question was closed, if it is closed.
  public let closedDate: Date?
  /// Why the question was closed (e.g. `Duplicate`), if it is closed.
  public let closedReason: String?
  /// The reputation offered by an open bounty, if there is one.
  public let bountyAmount: Int?
  /// When the open bounty expires, if there is one.
  public let bountyClosesDate: Date?
  /// When the question was protected, if it is protected.
  public let protectedDate: Date?
  /// When the question was locked, if it is locked.
  public let lockedDate: Date?
  /// When the question became community wiki, if it did.
  public let communityOwnedDate: Date?
  /// Where the question was migrated from, if it was migrated to this site.
  public let migratedFrom: MigrationInfo?
  /// Where the question was migrated to, if it was migrated away from this site.
  public let migratedTo: MigrationInfo?

  /// The question's id; same as `questionID`.
  public var id: Int { questionID }

  /// The title with HTML entities decoded, for display.
  public var displayTitle: String { title.decodingHTMLEntities }

  private enum CodingKeys: String, CodingKey {
    case questionID = "question_id"
    case title
    case link
    case tags
    case score
    case answerCount = "answer_count"
    case viewCount = "view_count"
    case isAnswered = "is_answered"
    case creationDate = "creation_date"
    case lastActivityDate = "last_activity_date"
    case contentLicense = "content_license"
    case owner
    case acceptedAnswerID = "accepted_answer_id"
    case lastEditDate = "last_edit_date"
    case closedDate = "closed_date"
    case closedReason = "closed_reason"
    case bountyAmount = "bounty_amount"
    case bountyClosesDate = "bounty_closes_date"
    case protectedDate = "protected_date"
    case lockedDate = "locked_date"
    case communityOwnedDate = "community_owned_date"
    case migratedFrom = "migrated_from"
    case migratedTo = "migrated_to"
  }

  /// Decodes a question from the API's JSON object.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    questionID = try container.decode(Int.self, forKey: .questionID)
    title = try container.decode(String.self, forKey: .title)
    link = try container.decode(URL.self, forKey: .link)
    tags = try container.decode([String].self, forKey: .tags)
    score = try container.decode(Int.self, forKey: .score)
    answerCount = try container.decode(Int.self, forKey: .answerCount)
    viewCount = try container.decode(Int.self, forKey: .viewCount)
    isAnswered = try container.decode(Bool.self, forKey: .isAnswered)
    creationDate = try container.decodeEpochDate(forKey: .creationDate)
    lastActivityDate = try container.decodeEpochDate(forKey: .lastActivityDate)
    contentLicense = try container.decodeIfPresent(String.self, forKey: .contentLicense)
    owner = try container.decodeIfPresent(QuestionOwner.self, forKey: .owner)
    acceptedAnswerID = try container.decodeIfPresent(Int.self, forKey: .acceptedAnswerID)
    lastEditDate = try container.decodeEpochDateIfPresent(forKey: .lastEditDate)
    closedDate = try container.decodeEpochDateIfPresent(forKey: .closedDate)
    closedReason = try container.decodeIfPresent(String.self, forKey: .closedReason)
    bountyAmount = try container.decodeIfPresent(Int.self, forKey: .bountyAmount)
    bountyClosesDate = try container.decodeEpochDateIfPresent(forKey: .bountyClosesDate)
    protectedDate = try container.decodeEpochDateIfPresent(forKey: .protectedDate)
    lockedDate = try container.decodeEpochDateIfPresent(forKey: .lockedDate)
    communityOwnedDate = try container.decodeEpochDateIfPresent(forKey: .communityOwnedDate)
    migratedFrom = try container.decodeIfPresent(MigrationInfo.self, forKey: .migratedFrom)
    migratedTo = try container.decodeIfPresent(MigrationInfo.self, forKey: .migratedTo)
  }
}
