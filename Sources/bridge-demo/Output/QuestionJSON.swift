import Foundation
import StackExchange

/// A question as `bridge-demo questions --json` prints it: API field names, unescaped text.
struct QuestionJSON: Encodable {
  let questionID: Int
  let title: String
  let link: URL
  let score: Int
  let answerCount: Int
  let viewCount: Int
  let isAnswered: Bool
  let tags: [String]
  let creationDate: Int64
  let owner: String?

  private enum CodingKeys: String, CodingKey {
    case questionID = "question_id"
    case title
    case link
    case score
    case answerCount = "answer_count"
    case viewCount = "view_count"
    case isAnswered = "is_answered"
    case tags
    case creationDate = "creation_date"
    case owner
  }

  /// The printable form of `question`.
  init(_ question: Question) {
    questionID = question.questionID
    title = question.displayTitle
    link = question.link
    score = question.score
    answerCount = question.answerCount
    viewCount = question.viewCount
    isAnswered = question.isAnswered
    tags = question.tags
    creationDate = Self.epochSeconds(question.creationDate)
    owner = question.owner?.displayName
  }

  /// `date` as whole seconds since 1970, clamped to `Int64`: a date decoded from the API's
  /// `Int64.max` comes back through `Double` as 2⁶³, which `Int64(_:)` traps on.
  static func epochSeconds(_ date: Date) -> Int64 {
    let seconds = date.timeIntervalSince1970.rounded(.down)
    if seconds >= Double(Int64.max) { return .max }
    if seconds <= Double(Int64.min) { return .min }
    return Int64(seconds)
  }
}
