import Foundation
import StackExchange
import Testing

/// The URL `query` builds against `base`, as a string.
private func urlString(_ query: QuestionsQuery, base: String) throws -> String {
  try query.url(baseURL: #require(URL(string: base))).absoluteString
}

@Test func siteOnlyQueryAppendsQuestionsToTheBasePath() throws {
  let query = QuestionsQuery(site: "stackoverflow")
  #expect(
    try urlString(query, base: "https://api.stackexchange.com/2.3")
      == "https://api.stackexchange.com/2.3/questions?site=stackoverflow")
}

@Test(arguments: [
  ("https://api.stackexchange.com", "https://api.stackexchange.com/questions?site=so"),
  ("https://api.stackexchange.com/", "https://api.stackexchange.com/questions?site=so"),
  ("https://api.stackexchange.com/2.3/", "https://api.stackexchange.com/2.3/questions?site=so"),
  ("http://127.0.0.1:8080/api/2.3", "http://127.0.0.1:8080/api/2.3/questions?site=so"),
  ("HTTPS://api.stackexchange.com/2.3", "HTTPS://api.stackexchange.com/2.3/questions?site=so"),
])
func basePathIsKeptWithOrWithoutTrailingSlash(base: String, expected: String) throws {
  #expect(try urlString(QuestionsQuery(site: "so"), base: base) == expected)
}

@Test func everyParameterAppearsInAPIForm() throws {
  let query = QuestionsQuery(
    site: "stackoverflow", pageSize: 50, page: 2, order: .ascending, sort: .votes,
    tagged: ["swift", "concurrency"])
  #expect(
    try urlString(query, base: "https://api.stackexchange.com/2.3")
      == "https://api.stackexchange.com/2.3/questions?site=stackoverflow&page=2&pagesize=50"
      + "&order=asc&sort=votes&tagged=swift;concurrency")
}

@Test func enumsUseTheAPIsValues() {
  #expect(QuestionsQuery.Order.allCases.map(\.rawValue) == ["desc", "asc"])
  #expect(
    QuestionsQuery.Sort.allCases.map(\.rawValue)
      == ["activity", "creation", "votes", "hot", "week", "month"])
}

@Test func valuesArePercentEncoded() throws {
  let query = QuestionsQuery(site: "a b&c=d", tagged: ["c++", "c#", "café", "a/b?"])
  #expect(
    try urlString(query, base: "https://api.stackexchange.com/2.3")
      == "https://api.stackexchange.com/2.3/questions?site=a%20b%26c%3Dd"
      + "&tagged=c%2B%2B;c%23;caf%C3%A9;a%2Fb%3F")
}

@Test func unreservedCharactersStayLiteral() throws {
  let query = QuestionsQuery(site: "meta.stackoverflow", tagged: ["objective-c", "c~_x"])
  #expect(
    try urlString(query, base: "https://api.stackexchange.com")
      == "https://api.stackexchange.com/questions?site=meta.stackoverflow&tagged=objective-c;c~_x")
}

@Test func existingBaseQueryIsKeptAndFragmentDropped() throws {
  let query = QuestionsQuery(site: "so", page: 1)
  #expect(
    try urlString(query, base: "https://api.stackexchange.com/2.3?key=abc#frag")
      == "https://api.stackexchange.com/2.3/questions?key=abc&site=so&page=1")
}

@Test func boundaryValuesAreAccepted() throws {
  let base = "https://api.stackexchange.com/2.3"
  #expect(
    try urlString(QuestionsQuery(site: "so", pageSize: 1, page: 1), base: base).hasSuffix(
      "?site=so&page=1&pagesize=1"))
  #expect(
    try urlString(QuestionsQuery(site: "so", pageSize: 100), base: base).hasSuffix(
      "?site=so&pagesize=100"))
}

@Test(arguments: [
  (QuestionsQuery(site: ""), QueryError.emptySite),
  (QuestionsQuery(site: " \t"), .emptySite),
  (QuestionsQuery(site: "so", pageSize: 0), .pageSizeOutOfRange(0)),
  (QuestionsQuery(site: "so", pageSize: 101), .pageSizeOutOfRange(101)),
  (QuestionsQuery(site: "so", pageSize: -5), .pageSizeOutOfRange(-5)),
  (QuestionsQuery(site: "so", page: 0), .pageOutOfRange(0)),
  (QuestionsQuery(site: "so", page: -1), .pageOutOfRange(-1)),
  (QuestionsQuery(site: "so", tagged: ["swift", ""]), .invalidTag("")),
  (QuestionsQuery(site: "so", tagged: ["swift;ios"]), .invalidTag("swift;ios")),
  (QuestionsQuery(site: "so", tagged: ["a", "b", "c", "d", "e", "f"]), .tooManyTags(6)),
])
func invalidParametersThrowTypedErrors(query: QuestionsQuery, expected: QueryError) throws {
  let base = try #require(URL(string: "https://api.stackexchange.com/2.3"))
  #expect(throws: expected) {
    try query.url(baseURL: base)
  }
}

@Test(arguments: [
  "ftp://api.stackexchange.com/2.3", "api.stackexchange.com/2.3", "file:///tmp/2.3",
  "https:///2.3", "mailto:someone@example.com",
])
func baseURLWithoutHTTPSchemeOrHostThrows(base: String) throws {
  let url = try #require(URL(string: base))
  #expect(throws: QueryError.invalidBaseURL(url)) {
    try QuestionsQuery(site: "so").url(baseURL: url)
  }
}

@Test func queryErrorsExplainTheProblem() throws {
  #expect(
    QueryError.pageSizeOutOfRange(0).description == "pagesize must be between 1 and 100, got 0")
  #expect(QueryError.pageOutOfRange(-1).description == "page must be 1 or greater, got -1")
  #expect(QueryError.emptySite.description.contains("site must not be empty"))
  #expect(QueryError.invalidTag("a;b").localizedDescription.contains("\"a;b\""))
  let url = try #require(URL(string: "ftp://host"))
  #expect(
    QueryError.invalidBaseURL(url).description
      == "base URL \"ftp://host\" must be an http or https URL with a host")
}

@Test func equalQueriesCoalesceAsDictionaryKeys() {
  let first = QuestionsQuery(site: "so", pageSize: 10, tagged: ["swift"])
  let second = QuestionsQuery(site: "so", pageSize: 10, tagged: ["swift"])
  var inFlight = [first: 1]
  inFlight[second, default: 0] += 1
  #expect(first == second)
  #expect(first.hashValue == second.hashValue)
  #expect(inFlight == [first: 2])
  #expect(QuestionsQuery(site: "so", page: 2) != QuestionsQuery(site: "so", page: 3))
  #expect(QuestionsQuery(site: "so", sort: .votes) != QuestionsQuery(site: "so"))
}
