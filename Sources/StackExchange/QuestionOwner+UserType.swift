extension QuestionOwner {
  /// The kind of account (`user_type`). Decoding never fails on a value this type does not
  /// know yet: such values become `.unknown` with the raw string kept.
  public enum UserType: Sendable, Hashable, Decodable {
    /// A registered account.
    case registered
    /// An unregistered (anonymous) account.
    case unregistered
    /// A site moderator.
    case moderator
    /// A Stack Overflow for Teams administrator.
    case teamAdmin
    /// A deleted account.
    case doesNotExist
    /// A value the API added after this type was written, kept verbatim. Equality goes by
    /// `rawValue`, so `.unknown("moderator") == .moderator`.
    case unknown(String)

    /// Maps the API's string to a case; unrecognised strings become `.unknown`.
    public init(rawValue: String) {
      switch rawValue {
      case "registered": self = .registered
      case "unregistered": self = .unregistered
      case "moderator": self = .moderator
      case "team_admin": self = .teamAdmin
      case "does_not_exist": self = .doesNotExist
      default: self = .unknown(rawValue)
      }
    }

    /// The API's string for this case.
    public var rawValue: String {
      switch self {
      case .registered: "registered"
      case .unregistered: "unregistered"
      case .moderator: "moderator"
      case .teamAdmin: "team_admin"
      case .doesNotExist: "does_not_exist"
      case .unknown(let value): value
      }
    }

    /// Two user types are equal when their API strings are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.rawValue == rhs.rawValue
    }

    /// Hashes the API string, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
      hasher.combine(rawValue)
    }

    /// Decodes from a JSON string.
    public init(from decoder: any Decoder) throws {
      self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }
  }
}
