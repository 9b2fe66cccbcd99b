import Foundation
import StackExchange
import TestSupport
import Testing

@Test func fixturePageDecodesWrapperFields() throws {
  let page = try decode(QuestionsPage.self, from: Fixtures.questionsPage)
  #expect(page.items.count == 5)
  #expect(page.items.map(\.id) == [79_834_101, 79_834_077, 79_834_052, 79_834_033, 79_833_940])
  #expect(page.hasMore)
  #expect(page.quotaMax == 300)
  #expect(page.quotaRemaining == 287)
  #expect(page.backoff == nil)
}

@Test func fixtureQuestionDecodesEveryField() throws {
  let question = try #require(
    try decode(QuestionsPage.self, from: Fixtures.questionsPage).items.first)
  #expect(question.questionID == 79_834_101)
  #expect(question.id == question.questionID)
  #expect(
    question.title
      == "Why does my OperationQueue never finish when I override &quot;isFinished&quot;?")
  #expect(
    question.displayTitle
      == "Why does my OperationQueue never finish when I override \"isFinished\"?")
  #expect(
    question.link.absoluteString
      == "https://stackoverflow.com/questions/79834101/why-does-my-operationqueue-never-finish-when-i-override-isfinished"
  )
  #expect(question.tags == ["swift", "concurrency", "nsoperationqueue"])
  #expect(question.score == 0)
  #expect(question.answerCount == 0)
  #expect(question.viewCount == 12)
  #expect(!question.isAnswered)
  #expect(question.creationDate == Date(timeIntervalSince1970: 1_763_750_110))
  #expect(question.lastActivityDate == Date(timeIntervalSince1970: 1_763_750_110))
  #expect(question.contentLicense == "CC BY-SA 4.0")
  #expect(question.acceptedAnswerID == nil)
  #expect(question.lastEditDate == nil)

  let owner = try #require(question.owner)
  #expect(owner.accountID == 1_102_934)
  #expect(owner.userID == 1_290_384)
  #expect(owner.reputation == 4821)
  #expect(owner.acceptRate == nil)
  #expect(owner.userType == .registered)
  #expect(owner.rawDisplayName == "Ana Ferreira")
  #expect(owner.displayName == "Ana Ferreira")
  #expect(owner.link?.absoluteString == "https://stackoverflow.com/users/1290384/ana-ferreira")
  #expect(
    owner.profileImage?.absoluteString
      == "https://www.gravatar.com/avatar/0a1b2c3d?s=256&d=identicon&r=PG")
}

@Test func fixtureFieldsThatOnlySometimesApplyDecodeWherePresent() throws {
  let items = try decode(QuestionsPage.self, from: Fixtures.questionsPage).items
  let answered = try #require(items.first { $0.questionID == 79_834_077 })
  #expect(answered.acceptedAnswerID == 79_834_188)
  #expect(answered.lastEditDate == Date(timeIntervalSince1970: 1_763_749_500))
  #expect(answered.isAnswered)
  #expect(answered.score == 3)
  #expect(items.filter { $0.acceptedAnswerID != nil }.map(\.id) == [79_834_077])
  #expect(items.filter { $0.lastEditDate != nil }.map(\.id) == [79_834_077])
  #expect(items.map(\.score) == [0, 3, -1, 1, 5])
}

@Test func fixtureEscapedTitlesAndNamesAreDecodedForDisplay() throws {
  let items = try decode(QuestionsPage.self, from: Fixtures.questionsPage).items
  #expect(items[1].owner?.rawDisplayName == "Jörg M&#252;ller")
  #expect(items[1].owner?.displayName == "Jörg Müller")
  #expect(
    items[2].title
      == "NSPersistentContainer performBackgroundTask vs OperationQueue &amp; priorities")
  #expect(
    items[2].displayTitle
      == "NSPersistentContainer performBackgroundTask vs OperationQueue & priorities")
  #expect(
    items[4].displayTitle == "Regex to match <tag> but not </tag> \u{2013} what am I missing?")
  #expect(items[4].owner?.displayName == "Tomás")
}

@Test func pageWithBackoffExposesSeconds() throws {
  let json =
    #"{"items": [], "has_more": false, "quota_max": 300, "quota_remaining": 0, "backoff": 10}"#
  let page = try decode(QuestionsPage.self, from: json)
  #expect(page.items.isEmpty)
  #expect(!page.hasMore)
  #expect(page.quotaRemaining == 0)
  #expect(page.backoff == 10)
}

@Test func pageWithoutWrapperFieldsFailsToDecode() {
  #expect(throws: DecodingError.self) {
    try decode(QuestionsPage.self, from: #"{"items": []}"#)
  }
}
