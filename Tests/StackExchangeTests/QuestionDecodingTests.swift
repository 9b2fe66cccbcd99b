import Foundation
import StackExchange
import Testing

/// A question with only the fields the API always sends.
private let minimalQuestion = #"""
  {"tags": [], "is_answered": false, "view_count": 0, "answer_count": 0, "score": 0,
   "last_activity_date": 1700000000, "creation_date": 0, "question_id": 1,
   "link": "https://stackoverflow.com/q/1", "title": "T"}
  """#

@Test func questionWithoutOptionalFieldsDecodesThemAsNil() throws {
  let question = try decode(Question.self, from: minimalQuestion)
  #expect(question.questionID == 1)
  #expect(question.tags.isEmpty)
  #expect(question.owner == nil)
  #expect(question.contentLicense == nil)
  #expect(question.acceptedAnswerID == nil)
  #expect(question.lastEditDate == nil)
  #expect(question.closedDate == nil)
  #expect(question.closedReason == nil)
  #expect(question.bountyAmount == nil)
  #expect(question.bountyClosesDate == nil)
  #expect(question.protectedDate == nil)
  #expect(question.lockedDate == nil)
  #expect(question.communityOwnedDate == nil)
  #expect(question.migratedFrom == nil)
  #expect(question.migratedTo == nil)
}

@Test func datesDecodeFromEpochSecondsWithAPlainDecoder() throws {
  let question = try decode(Question.self, from: minimalQuestion)
  #expect(question.creationDate == Date(timeIntervalSince1970: 0))
  #expect(question.lastActivityDate == Date(timeIntervalSince1970: 1_700_000_000))
  #expect(question.lastActivityDate.formatted(.iso8601) == "2023-11-14T22:13:20Z")
}

@Test func datesDecodeFromEpochSecondsWhateverTheDecoderDateStrategy() throws {
  let decoder = JSONDecoder()
  decoder.dateDecodingStrategy = .iso8601
  let question = try decoder.decode(Question.self, from: Data(minimalQuestion.utf8))
  #expect(question.lastActivityDate == Date(timeIntervalSince1970: 1_700_000_000))
}

@Test func questionWithEveryOptionalFieldDecodesThem() throws {
  let json = #"""
    {"tags": ["swift"], "is_answered": true, "view_count": 9, "answer_count": 1, "score": 2,
     "last_activity_date": 1700000100, "creation_date": 1700000000, "question_id": 7,
     "link": "https://stackoverflow.com/q/7", "title": "T", "content_license": "CC BY-SA 3.0",
     "owner": {"user_type": "moderator", "display_name": "Mod", "accept_rate": 80},
     "accepted_answer_id": 8, "last_edit_date": 1700000001, "closed_date": 1700000002,
     "closed_reason": "Duplicate", "bounty_amount": 50, "bounty_closes_date": 1700000003,
     "protected_date": 1700000004, "locked_date": 1700000005,
     "community_owned_date": 1700000006,
     "migrated_from": {"question_id": 99, "on_date": 1700000007,
       "other_site": {"name": "Super User", "api_site_parameter": "superuser",
                      "site_url": "https://superuser.com", "site_type": "main_site"}},
     "migrated_to": {"question_id": 100, "on_date": 1700000008,
       "other_site": {"name": "Server Fault", "api_site_parameter": "serverfault",
                      "site_url": "https://serverfault.com"}}}
    """#
  let question = try decode(Question.self, from: json)
  #expect(question.contentLicense == "CC BY-SA 3.0")
  #expect(question.owner?.userType == .moderator)
  #expect(question.owner?.acceptRate == 80)
  #expect(question.acceptedAnswerID == 8)
  #expect(question.lastEditDate == Date(timeIntervalSince1970: 1_700_000_001))
  #expect(question.closedDate == Date(timeIntervalSince1970: 1_700_000_002))
  #expect(question.closedReason == "Duplicate")
  #expect(question.bountyAmount == 50)
  #expect(question.bountyClosesDate == Date(timeIntervalSince1970: 1_700_000_003))
  #expect(question.protectedDate == Date(timeIntervalSince1970: 1_700_000_004))
  #expect(question.lockedDate == Date(timeIntervalSince1970: 1_700_000_005))
  #expect(question.communityOwnedDate == Date(timeIntervalSince1970: 1_700_000_006))

  let migratedFrom = try #require(question.migratedFrom)
  #expect(migratedFrom.questionID == 99)
  #expect(migratedFrom.onDate == Date(timeIntervalSince1970: 1_700_000_007))
  #expect(migratedFrom.otherSiteName == "Super User")
  #expect(migratedFrom.otherSiteAPIParameter == "superuser")
  #expect(migratedFrom.otherSiteURL.absoluteString == "https://superuser.com")
  #expect(question.migratedTo?.questionID == 100)
  #expect(question.migratedTo?.otherSiteAPIParameter == "serverfault")
}

@Test func questionMissingARequiredFieldFailsToDecode() {
  let json = minimalQuestion.replacingOccurrences(of: #""question_id": 1,"#, with: "")
  #expect(json != minimalQuestion)
  #expect(throws: DecodingError.self) {
    try decode(Question.self, from: json)
  }
}

@Test func questionWithNonNumericDateFailsToDecode() {
  let json = minimalQuestion.replacingOccurrences(
    of: #""creation_date": 0"#, with: #""creation_date": "2023-11-14T22:13:20Z""#)
  #expect(json != minimalQuestion)
  #expect(throws: DecodingError.self) {
    try decode(Question.self, from: json)
  }
}
