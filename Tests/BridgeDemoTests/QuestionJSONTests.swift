import Foundation
import StackExchange
import Testing

@testable import bridge_demo

/// `questions --json`'s view of a question.
@Suite struct QuestionJSONTests {
  private func question(creationDate: Int64) throws -> Question {
    let json = """
      {"tags": [], "is_answered": false, "view_count": 0, "answer_count": 0, "score": 0,
       "last_activity_date": 1700000000, "creation_date": \(creationDate), "question_id": 1,
       "link": "https://stackoverflow.com/q/1", "title": "T"}
      """
    return try JSONDecoder().decode(Question.self, from: Data(json.utf8))
  }

  /// Every creation date the API's integer can carry prints as an integer, the extremes
  /// included (they come back through `Double` as ±2⁶³, one past `Int64.max`).
  @Test(arguments: [Int64.min, -1, 0, 1_700_000_000, Int64.max])
  func creationDatesSurviveTheRoundTrip(seconds: Int64) throws {
    let printed = QuestionJSON(try question(creationDate: seconds)).creationDate

    #expect(printed == seconds)
  }
}
