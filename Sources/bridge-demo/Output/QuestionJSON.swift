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
    creationDate = Int64(question.creationDate.timeIntervalSince1970)
    owner = question.owner?.displayName
  }
}
