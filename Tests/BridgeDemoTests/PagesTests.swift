import FixtureServer
import Foundation
import Testing

/// `questions --pages`: pages printed as they arrive, in order, with their quota and the
/// backoff the embedded server puts on page 2; one JSON object per line; a failure mid-way
/// keeps the pages already printed.
@Suite struct PagesTests {
  /// The lines of `text`, blank ones included.
  private func lines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  @Test func threePagesArriveInOrderAndThePageAfterTheBackoffWaitsForIt() async throws {
    let output = try await BridgeDemoProcess.run(["questions", "--pages", "3"])

    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stderr.isEmpty)
    let lines = lines(output.stdout)
    let first = try #require(
      lines.firstIndex(of: "page 1: 10 questions (more available; quota 299 of 300 left)"),
      "\(output.stdout)")
    let second = try #require(
      lines.firstIndex(
        of: "page 2: 10 questions (more available; quota 298 of 300 left; backoff 1 s)"))
    let backoff = try #require(
      lines.firstIndex(of: "backoff: waiting 1 s before requesting page 3, as page 2 asked"))
    let third = try #require(lines.firstIndex { $0.hasPrefix("page 3: 10 questions, after a ") })
    #expect(lines[third].hasSuffix(" backoff wait (quota 297 of 300 left)"), "\(lines[third])")
    #expect(first < second && second < backoff && backoff < third)
    #expect(lines.count { $0.hasPrefix("page ") } == 3)
    // Questions are numbered on across pages.
    #expect(lines[first + 2].hasPrefix(" 1. "))
    #expect(lines[second + 2].hasPrefix("11. "))
    #expect(lines.contains { $0.hasPrefix("30. ") })
    #expect(output.elapsed >= .seconds(1))
  }

  /// A backoff on the last page delays nothing, whether the pages ran out (30 questions in
  /// two pages of 15) or `--pages` did.
  @Test(arguments: [["--pages", "5", "--pagesize", "15"], ["--pages", "2"]])
  func noBackoffLineAfterTheLastPage(arguments: [String]) async throws {
    let output = try await BridgeDemoProcess.run(["questions"] + arguments)

    #expect(output.status == 0, "\(output.stderr)")
    let headings = lines(output.stdout).filter { $0.hasPrefix("page ") }
    #expect(headings.count == 2, "\(headings)")
    #expect(headings.last?.hasSuffix("; backoff 1 s)") == true, "\(headings)")
    #expect(!output.stdout.contains("backoff: waiting"))
  }

  @Test func jsonPagesAreOneObjectPerLine() async throws {
    let output = try await BridgeDemoProcess.run(["questions", "--json", "--pages", "3"])

    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.hasSuffix("}\n"))
    let objects = try output.stdout.split(separator: "\n").map { line in
      try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
    #expect(objects.count == 3)
    #expect(objects.map { $0["page"] as? Int } == [1, 2, 3])
    #expect(objects.map { $0["quota_remaining"] as? Int } == [299, 298, 297])
    #expect(objects.allSatisfy { $0["quota_max"] as? Int == 300 })
    #expect(objects.map { $0["backoff"] as? Int } == [nil, 1, nil])
    #expect(objects.map { $0["has_more"] as? Bool } == [true, true, false])
    #expect(objects.allSatisfy { ($0["items"] as? [[String: Any]])?.count == 10 })
  }

  @Test func zeroPagesIsAUsageError() async throws {
    let output = try await BridgeDemoProcess.run(["questions", "--pages", "0"])

    #expect(output.status == 64)
    #expect(output.stdout.isEmpty)
    #expect(
      output.errorLines == [
        "error: invalid value '0' for --pages: expected an integer from 1 to 100",
        "usage: bridge-demo questions [--base-url <url>] [--site <name>] [--pagesize <n>]",
        "       [--pages <n>] [--json]",
        "see 'bridge-demo questions --help'",
      ])
  }

  @Test(arguments: [
    (
      FixtureResponse.json(
        Data(
          #"{"error_id": 502, "error_name": "throttle_violation", "error_message": "too many requests"}"#
            .utf8),
        status: 400),
      "error: HTTP 400 throttle_violation: too many requests"
    ),
    (
      FixtureResponse(fault: .closeWithoutResponse),
      "error: the server closed the connection without a response (URLError -1011)"
    ),
  ])
  func aFailureOnPage2EndsWithOneErrorLineAfterPage1(
    response: FixtureResponse, errorLine: String
  ) async throws {
    let server = try failingServer(onPage: 2, with: response)

    for json in [false, true] {
      let output = try await BridgeDemoProcess.run(
        ["questions", "--pages", "3", "--base-url", server.baseURL.absoluteString]
          + (json ? ["--json"] : []))

      #expect(output.status == 1)
      #expect(output.errorLines == [errorLine], "\(output.stderr)")
      if json {
        let objects = output.stdout.split(separator: "\n")
        #expect(objects.count == 1, "\(output.stdout)")
        #expect(objects.first?.contains(#""page":1,"#) == true)
      } else {
        let headings = lines(output.stdout).filter { $0.hasPrefix("page ") }
        #expect(headings == ["page 1: 10 questions (more available; quota 299 of 300 left)"])
      }
    }
  }

  /// A server that asks to back off for an hour, or for `Int.max` seconds, is not waited for:
  /// the pages stop at once with one error line that gives the wait asked and the most the demo
  /// waits (and the largest backoff the API's integer can carry prints without trapping).
  @Test(arguments: [3600, Int.max])
  func aBackoffTooLongToWaitOutEndsThePagesAtOnce(backoff: Int) async throws {
    let fixture = StackExchangeFixture(pageBackoffs: [1: backoff])
    let server = try FixtureHTTPServer(responder: fixture.respond(to:))

    for json in [false, true] {
      let output = try await BridgeDemoProcess.run(
        ["questions", "--pages", "3", "--base-url", server.baseURL.absoluteString]
          + (json ? ["--json"] : []))

      #expect(output.status == 1)
      #expect(
        output.errorLines == [
          "error: the API asked to back off: no /questions call on stackoverflow for another "
            + "\(backoff) s, more than the 60 s the demo waits"
        ], "\(output.stderr)")
      #expect(!output.stdout.contains("backoff: waiting"))
      #expect(
        output.stdout.split(separator: "\n").count { $0.contains(#""page":"#) } == (json ? 1 : 0))
      #expect(output.elapsed < .seconds(30))
    }
    // Page 1 once per run: page 2 is never sent.
    #expect(server.requestCount(path: "/questions") == 2)
  }

  /// A backoff of zero or less asks for no wait: the pages go on, and no line claims a wait.
  @Test func aBackoffBelowOneSecondIsNotWaitedForNorAnnounced() async throws {
    let fixture = StackExchangeFixture(pageBackoffs: [1: -5, 2: 0])
    let server = try FixtureHTTPServer(responder: fixture.respond(to:))

    let output = try await BridgeDemoProcess.run(
      ["questions", "--pages", "3", "--base-url", server.baseURL.absoluteString])

    #expect(output.status == 0, "\(output.stderr)")
    #expect(!output.stdout.contains("backoff: waiting"), "\(output.stdout)")
    #expect(!output.stdout.contains("backoff wait"), "\(output.stdout)")
    #expect(output.stdout.split(separator: "\n").count { $0.hasPrefix("page ") } == 3)
  }

  @Test func theErrorLineFollowsThePagesPrintedBeforeIt() async throws {
    let server = try failingServer(onPage: 3, with: FixtureResponse(fault: .closeWithoutResponse))

    let output = try await BridgeDemoProcess.run(
      ["questions", "--json", "--pages", "5", "--base-url", server.baseURL.absoluteString],
      streams: .shell(redirections: "2>&1"))

    #expect(output.status == 1)
    let lines = output.stdout.split(separator: "\n")
    #expect(lines.count == 3, "\(output.stdout)")
    #expect(lines.prefix(2).allSatisfy { $0.hasPrefix("{") })
    #expect(lines.last?.hasPrefix("error: the server closed the connection") == true)
  }

  /// Once standard output is gone, no further page is requested: the one already under way
  /// (page 2, requested as page 1 arrived) at most.
  @Test func aReaderThatWentAwayStopsThePages() async throws {
    let fixture = StackExchangeFixture()
    let server = try FixtureHTTPServer(responder: fixture.respond(to:))

    let output = try await BridgeDemoProcess.run(
      [
        "questions", "--pages", "6", "--pagesize", "5", "--base-url", server.baseURL.absoluteString,
      ],
      streams: .readerless)

    #expect(output.status == 1)
    #expect(output.stderr.isEmpty)
    #expect((1...2).contains(server.requestCount(path: "/questions")))
  }

  /// A fixture server whose page `page` gets `response` instead of the questions.
  private func failingServer(
    onPage page: Int, with response: FixtureResponse
  ) throws -> FixtureHTTPServer {
    let fixture = StackExchangeFixture()
    return try FixtureHTTPServer { request in
      request.query["page"] == String(page) ? response : fixture.respond(to: request)
    }
  }
}
