import Foundation

/// The author of a question (`shallow_user` in API terms).
///
/// Every field is optional: the API may omit any of them, and a deleted account arrives as just
/// `{"user_type": "does_not_exist", "display_name": "user123"}`. A link or image that is not a
/// URL (an empty string, say) is nil too: an author's avatar never costs the page its questions.
public struct QuestionOwner: Sendable, Decodable, Equatable {
  /// The network-wide account id.
  public let accountID: Int?
  /// The user's id on the question's site.
  public let userID: Int?
  /// The user's reputation on the question's site.
  public let reputation: Int?
  /// The percentage of the user's questions with an accepted answer, when shown.
  public let acceptRate: Int?
  /// The kind of account.
  public let userType: UserType?
  /// The display name as sent by the API, still HTML-escaped (e.g. `M&#252;ller`).
  public let rawDisplayName: String?
  /// The user's profile page.
  public let link: URL?
  /// The user's avatar image.
  public let profileImage: URL?

  /// The display name with HTML entities decoded, for display.
  public var displayName: String? { rawDisplayName?.decodingHTMLEntities }

  private enum CodingKeys: String, CodingKey {
    case accountID = "account_id"
    case userID = "user_id"
    case reputation
    case acceptRate = "accept_rate"
    case userType = "user_type"
    case rawDisplayName = "display_name"
    case link
    case profileImage = "profile_image"
  }

  /// Decodes an owner from the API's JSON object.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    accountID = try container.decodeIfPresent(Int.self, forKey: .accountID)
    userID = try container.decodeIfPresent(Int.self, forKey: .userID)
    reputation = try container.decodeIfPresent(Int.self, forKey: .reputation)
    acceptRate = try container.decodeIfPresent(Int.self, forKey: .acceptRate)
    userType = try container.decodeIfPresent(UserType.self, forKey: .userType)
    rawDisplayName = try container.decodeIfPresent(String.self, forKey: .rawDisplayName)
    link = try container.decodeIfPresent(String.self, forKey: .link).flatMap(URL.init(string:))
    profileImage = try container.decodeIfPresent(String.self, forKey: .profileImage).flatMap(
      URL.init(string:))
  }
}
