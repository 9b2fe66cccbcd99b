import Foundation

/// Where a question was migrated from or to (`migration_info` in API terms).
///
/// The API nests the other site as a full `site` object; only the fields needed to name and
/// link to it are kept, flattened into this type.
public struct MigrationInfo: Sendable, Decodable, Equatable {
  /// The question's id on the other site.
  public let questionID: Int
  /// When the migration happened.
  public let onDate: Date
  /// The other site's human-readable name, possibly HTML-escaped (e.g. `Super User`).
  public let otherSiteName: String
  /// The other site's `site` parameter value for API calls (e.g. `superuser`).
  public let otherSiteAPIParameter: String
  /// The other site's root URL.
  public let otherSiteURL: URL

  private enum CodingKeys: String, CodingKey {
    case questionID = "question_id"
    case onDate = "on_date"
    case otherSite = "other_site"
  }

  private enum SiteCodingKeys: String, CodingKey {
    case name
    case apiSiteParameter = "api_site_parameter"
    case siteURL = "site_url"
  }

  /// Decodes migration info, including the needed fields of its nested `other_site` object.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    questionID = try container.decode(Int.self, forKey: .questionID)
    onDate = try container.decodeEpochDate(forKey: .onDate)
    let site = try container.nestedContainer(keyedBy: SiteCodingKeys.self, forKey: .otherSite)
    otherSiteName = try site.decode(String.self, forKey: .name)
    otherSiteAPIParameter = try site.decode(String.self, forKey: .apiSiteParameter)
    otherSiteURL = try site.decode(URL.self, forKey: .siteURL)
  }
}
