import Foundation
import TestSupport
import Testing

@testable import FixtureServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

private let session = makeTestSession()

@Suite struct StackExchangeFixtureTests {
  private func get(_ target: String, from fixture: StackExchangeFixture = StackExchangeFixture())
    -> FixtureResponse
  {
    fixture.respond(to: FixtureRequest(target: target))
  }

  private func object(_ response: FixtureResponse) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: response.body) as? [String: Any])
  }

  private func items(_ response: FixtureResponse) throws -> [[String: Any]] {
    try #require(object(response)["items"] as? [[String: Any]])
  }

  @Test func defaultPageHasTheShapeOfTheRealAPI() throws {
    let response = get("/2.3/questions?order=desc&sort=activity&site=stackoverflow")

    #expect(response.status == 200)
    #expect(response.contentEncoding == .gzip)
    #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
    let json = try object(response)
    #expect(Set(json.keys) == ["items", "has_more", "quota_max", "quota_remaining"])
    #expect(try items(response).count == 30)
    #expect(json["has_more"] as? Bool == false)
    #expect(json["quota_max"] as? Int == 300)
    #expect(json["quota_remaining"] as? Int == 299)
  }

  @Test func pagesSliceAllQuestionsInActivityOrder() throws {
    let fixture = StackExchangeFixture()
    var pages: [[[String: Any]]] = []
    var hasMore: [Bool] = []

    for page in 1...6 {
      let response = get("/questions?site=superuser&pagesize=7&page=\(page)", from: fixture)
      pages.append(try items(response))
      hasMore.append(try #require(object(response)["has_more"] as? Bool))
    }

    #expect(pages.map(\.count) == [7, 7, 7, 7, 2, 0])
    #expect(hasMore == [true, true, true, true, false, false])
    let all = pages.joined()
    let ids = all.compactMap { $0["question_id"] as? Int }
    #expect(ids.count == StackExchangeFixture.questionCount)
    #expect(Set(ids).count == ids.count)
    let activity = all.compactMap { $0["last_activity_date"] as? Int }
    #expect(activity == activity.sorted(by: >))
    #expect(fixture.quotaRemaining == 294)
  }

  @Test func sortAndOrderParametersAreHonoured() throws {
    let votes = try items(get("/questions?site=askubuntu&sort=votes&order=desc&pagesize=100"))
    let created = try items(get("/questions?site=math&sort=creation&order=asc&pagesize=100"))

    let scores = votes.compactMap { $0["score"] as? Int }
    let creationDates = created.compactMap { $0["creation_date"] as? Int }
    #expect(scores.count == 30 && scores == scores.sorted(by: >))
    #expect(creationDates.count == 30 && creationDates == creationDates.sorted())
  }

  @Test func quotaDecrementsBackoffIsReportedAndAnEmptyQuotaThrottles() throws {
    let fixture = StackExchangeFixture(backoff: 10, quotaMax: 2)

    let first = try object(get("/questions?site=stackoverflow", from: fixture))
    fixture.backoff = nil
    let second = try object(get("/questions?site=stackoverflow", from: fixture))
    let third = get("/questions?site=stackoverflow", from: fixture)

    #expect(first["quota_remaining"] as? Int == 1)
    #expect(first["backoff"] as? Int == 10)
    #expect(second["quota_remaining"] as? Int == 0)
    #expect(second["backoff"] == nil)
    #expect(third.status == 400)
    #expect(try object(third)["error_name"] as? String == "throttle_violation")
    #expect(try object(third)["error_id"] as? Int == 502)
  }

  @Test func pageBackoffsApplyToTheirPageOnlyAndOverrideTheGeneralBackoff() throws {
    let fixture = StackExchangeFixture(backoff: 5, pageBackoffs: [2: 1])

    let pages = try (1...3).map { page in
      try object(get("/questions?site=stackoverflow&pagesize=10&page=\(page)", from: fixture))
    }
    fixture.pageBackoffs = [3: 2]
    fixture.backoff = nil
    let later = try (2...3).map { page in
      try object(get("/questions?site=stackoverflow&pagesize=10&page=\(page)", from: fixture))
    }

    #expect(pages.map { $0["backoff"] as? Int } == [5, 1, 5])
    #expect(pages.map { $0["has_more"] as? Bool } == [true, true, false])
    #expect(later.map { $0["backoff"] as? Int } == [nil, 2])
    #expect(fixture.pageBackoffs == [3: 2])
  }

  @Test func embeddedQuestionsDecode() throws {
    let questions = try StackExchangeFixture.embeddedQuestions.get()

    #expect(questions.count == 30)
    #expect(StackExchangeFixture.questionCount == 30)
  }

  @Test func undecodableDataIsAClearErrorNotACrash() throws {
    let result = StackExchangeFixture.decodeQuestions(Array(#"[{"title": 1}]"#.utf8))

    #expect(throws: FixtureDataError.self) { try result.get() }
    guard case .failure(let error) = result else { return }
    #expect(error.file == "questions.json")
    #expect(error.description.hasPrefix("the fixture's questions.json could not be read: "))
    let fixture = StackExchangeFixture(questionData: result)
    let response = get("/questions?site=stackoverflow", from: fixture)
    #expect(response.status == 400)
    #expect(try object(response)["error_name"] as? String == "internal_error")
    #expect(try object(response)["error_message"] as? String == error.description)
  }

  @Test func missingSiteGivesTheAPIErrorBody() {
    let response = get("/2.3/questions?pagesize=5")

    #expect(response.status == 400)
    #expect(response.contentEncoding == .gzip)
    #expect(
      String(decoding: response.body, as: UTF8.self)
        == #"{"error_id":400,"error_message":"site is required","error_name":"bad_parameter"}"#)
  }

  @Test func unknownSiteIsABadParameterButDomainNamesAreAccepted() throws {
    let unknown = get("/questions?site=xyz")
    let domain = get("/questions?site=serverfault.com")

    #expect(unknown.status == 400)
    #expect(try object(unknown)["error_message"] as? String == "No site found for name `xyz`")
    #expect(try object(unknown)["error_name"] as? String == "bad_parameter")
    #expect(domain.status == 200)
  }

  @Test(arguments: [
    ("pagesize=0", "pagesize"), ("pagesize=101", "pagesize"), ("pagesize=ten", "pagesize"),
    ("page=0", "page"), ("sort=hot", "sort"), ("order=up", "order"),
  ])
  func invalidParametersAreBadParameters(query: String, message: String) throws {
    let response = get("/questions?site=stackoverflow&\(query)")

    #expect(response.status == 400)
    #expect(try object(response)["error_message"] as? String == message)
    #expect(try object(response)["error_id"] as? Int == 400)
  }

  @Test(arguments: ["/2.3/answers?site=stackoverflow", "/", "/questions/extra?site=math"])
  func unknownMethodsGive404(target: String) throws {
    let response = get(target)

    #expect(response.status == 404)
    #expect(
      String(decoding: response.body, as: UTF8.self)
        == #"{"error_id":404,"error_message":"no method found with this name","error_name":"no_method"}"#
    )
  }

  @Test func latencySettingIsAppliedToEveryResponse() {
    let fixture = StackExchangeFixture(latency: .milliseconds(40))
    #expect(get("/questions?site=math", from: fixture).latency == .milliseconds(40))

    fixture.latency = .milliseconds(150)

    #expect(fixture.latency == .milliseconds(150))
    #expect(get("/questions", from: fixture).latency == .milliseconds(150))
  }

  @Test func questionsCarryHTMLEntitiesOptionalFieldsAndADeletedOwner() throws {
    let all = try items(get("/questions?site=stackoverflow&pagesize=100"))
    let owners = all.compactMap { $0["owner"] as? [String: Any] }
    let text =
      all.compactMap { $0["title"] as? String }
      + owners.compactMap { $0["display_name"] as? String }

    for entity in ["&quot;", "&amp;", "&lt;", "&gt;", "&#39;", "&#252;", "&#xE9;"] {
      #expect(text.contains { $0.contains(entity) }, "no \(entity)")
    }
    for key in ["accepted_answer_id", "last_edit_date", "closed_date", "closed_reason"] {
      let count = all.filter { $0[key] != nil }.count
      #expect(count > 0 && count < all.count, "\(key) on \(count) of \(all.count)")
    }
    let deleted = owners.filter { $0["user_type"] as? String == "does_not_exist" }
    #expect(deleted.contains { $0["display_name"] as? String == "user123" })
    #expect(deleted.allSatisfy { Set($0.keys) == ["user_type", "display_name"] })
  }

  @Test func firstFiveQuestionsMatchTheSamplePage() throws {
    let file = try #require(
      JSONSerialization.jsonObject(with: Data(Fixtures.questionsPage.utf8)) as? [String: Any])
    let expected = try #require(file["items"] as? [[String: Any]])

    let served = try items(get("/questions?site=stackoverflow&pagesize=5"))

    #expect(served.count == expected.count)
    for (lhs, rhs) in zip(served, expected) {
      #expect(try canonical(lhs) == canonical(rhs))
    }
  }

  /// Re-serialised with sorted keys, so that key order and spacing do not matter.
  private func canonical(_ object: [String: Any]) throws -> String {
    let data = try JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
  }

  @Test func servesGzipCompressedJSONOverHTTP() async throws {
    let fixture = StackExchangeFixture()
    let server = try FixtureHTTPServer(responder: fixture.respond(to:))

    let ok = await session.fetch(server.url("/2.3/questions?site=stackoverflow&pagesize=3"))
    let missing = await session.fetch(server.url("/2.3/questions"))

    #expect(ok.status == 200)
    #expect(ok.response?.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
    let data = try #require(ok.data)
    let json = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect((json["items"] as? [Any])?.count == 3)
    #expect(json["has_more"] as? Bool == true)
    #expect(missing.status == 400)
    #expect(missing.error == nil)
    #expect(server.requestCount(path: "/2.3/questions") == 2)
    #expect(fixture.quotaRemaining == 299)
  }
}
