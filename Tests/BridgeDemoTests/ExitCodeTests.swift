import FixtureServer
import Foundation
import Testing

/// Runs of the real executable: exit statuses and what goes to which stream.
@Suite struct ExitCodeTests {
  @Test(arguments: [
    ["--bogus"], ["bogus"], ["questions", "--pagesize", "0"],
    ["questions", "--base-url", "ftp://x"],
    ["questions", "--foo"], ["coalesce", "--callers", "0"], ["cancel", "--after"],
    ["questions", "--json", "--json"], ["questions", "--pages", "0"],
    ["questions", "--pages", "-2"], ["questions", "--pages", "many"],
    ["questions", "--pages", "99999999999999999999"], ["questions", "--json", "--pages"],
  ])
  func usageErrorsExitWith64AndSayWhatIsWrongAndHowToUseTheCommand(arguments: [String])
    async throws
  {
    let output = try await BridgeDemoProcess.run(arguments)

    #expect(output.status == 64)
    #expect(output.stdout.isEmpty)
    #expect(output.errorLines.first?.hasPrefix("error: ") == true, "\(output.stderr)")
    #expect(output.errorLines.dropFirst().first?.hasPrefix("usage: bridge-demo") == true)
    #expect(output.errorLines.last?.hasPrefix("see 'bridge-demo ") == true)
    #expect(output.errorLines.count { $0.hasPrefix("error: ") } == 1)
  }

  @Test(arguments: [
    ["--help"], ["-h"], ["questions", "--help"], ["cancel", "-h"], ["help", "bench"],
  ])
  func helpGoesToStandardOutputWithStatus0(arguments: [String]) async throws {
    let output = try await BridgeDemoProcess.run(arguments)

    #expect(output.status == 0)
    #expect(output.stdout.contains("USAGE: bridge-demo"))
    #expect(output.stderr.isEmpty)
  }

  @Test func apiErrorBodyIsReportedOnOneLine() async throws {
    let output = try await BridgeDemoProcess.run(["questions", "--site", "nosuchsite"])

    #expect(output.status == 1)
    #expect(
      output.errorLines == ["error: HTTP 400 bad_parameter: No site found for name `nosuchsite`"])
  }

  @Test(arguments: [
    FixtureResponse.html("<html>\n<body>503 Service Unavailable</body>\n</html>", status: 503),
    .html("<!DOCTYPE html><html></html>"),
    .json(Data()),
    .json(Data(#"{"items": ["#.utf8)),
    .json(Data("null".utf8), status: 500),
    .text("Moved", status: 301),
    FixtureResponse(status: 200, body: Data(#"{"items": []}"#.utf8), fault: .truncatedGzip),
    FixtureResponse(status: 200, body: Data(#"{"items": []}"#.utf8), fault: .corruptGzip),
    FixtureResponse(status: 200, body: Data(repeating: 0x20, count: 4096), fault: .resetMidBody),
    FixtureResponse(status: 200, body: Data(#"{"items": []}"#.utf8), fault: .shortBody),
    FixtureResponse(fault: .closeWithoutResponse),
  ])
  func everyBadResponseExitsWith1AndOneErrorLine(response: FixtureResponse) async throws {
    let server = try FixtureHTTPServer { _ in response }

    let output = try await BridgeDemoProcess.run([
      "questions", "--base-url", server.baseURL.absoluteString,
    ])

    #expect(output.status == 1)
    #expect(output.stdout.isEmpty)
    #expect(output.errorLines.count == 1, "\(output.stderr)")
    #expect(output.errorLines.first?.hasPrefix("error: ") == true, "\(output.stderr)")
  }

  /// A base URL that points at a port speaking another protocol is named as such, not as an
  /// unsupported URL scheme (which is how URLSession on Linux reports it).
  @Test func aPortThatDoesNotSpeakHTTPIsNamedInTheErrorLine() async throws {
    let server = try FixtureHTTPServer { _ in FixtureResponse(fault: .notHTTP) }

    let output = try await BridgeDemoProcess.run([
      "questions", "--base-url", server.baseURL.absoluteString,
    ])

    #expect(output.status == 1)
    #expect(output.stdout.isEmpty)
    #expect(output.errorLines == ["error: the server's answer is not HTTP (URLError -1002)"])
  }

  @Test func questionsJSONIsOneObjectOnStandardOutput() async throws {
    let output = try await BridgeDemoProcess.run(["questions", "--json", "--pagesize", "4"])

    #expect(output.status == 0)
    let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
    let page = try #require(json as? [String: Any])
    #expect(page["has_more"] as? Bool == true)
    #expect(page["quota_max"] as? Int == 300)
    #expect(page["backoff"] == nil)
    let questions = try #require(page["items"] as? [[String: Any]])
    #expect(questions.count == 4)
    let first = try #require(questions.first)
    #expect(first["question_id"] as? Int == 79_834_101)
    #expect(
      first["title"] as? String
        == "Why does my OperationQueue never finish when I override \"isFinished\"?")
    #expect(first["link"] as? String != nil)
    #expect(first["score"] as? Int == 0)
    #expect(first["answer_count"] as? Int == 0)
    #expect(first["tags"] as? [String] == ["swift", "concurrency", "nsoperationqueue"])
  }

  @Test func questionsTextShowsUnescapedTitles() async throws {
    let output = try await BridgeDemoProcess.run(["questions", "--pagesize", "3"])

    #expect(output.status == 0)
    #expect(
      output.stdout.contains(
        "NSPersistentContainer performBackgroundTask vs OperationQueue & priorities"))
    #expect(output.stdout.contains("score -1 | 1 answer | ios, swift, core-data"))
  }

  @Test func coalesceReportsOneRequestForEveryCaller() async throws {
    let output = try await BridgeDemoProcess.run(["coalesce", "--callers", "6"])

    #expect(output.status == 0)
    #expect(output.stdout.contains("3 with try await, 3 with completion handlers"))
    #expect(output.stdout.contains("HTTP requests: 1 (counted by the embedded server)"))
    #expect(output.stdout.contains("every caller got the page: yes, 6 of 6"))
  }

  @Test func cancelShowsEveryLayerLettingGo() async throws {
    let output = try await BridgeDemoProcess.run(["cancel"])

    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("cancelled the calling task once the server had the request"))
    #expect(output.stdout.contains("caller: CancellationError"))
    #expect(output.stdout.contains("operation: cancelled"))
    #expect(output.stdout.contains("HTTP request: abandoned, the server saw the connection close"))
    #expect(output.stdout.contains("1 data task running at the cancellation, none left after it"))
    #expect(output.stdout.contains("queue: drained"))
  }

  /// `cancel --keep`: the caller asks for the request to complete after it leaves; it is
  /// cancelled once the server has the request, the request completes, and a second caller a
  /// moment later joins it: one request for both.
  @Test func cancelKeepCompletesTheRequestForASecondCaller() async throws {
    let output = try await BridgeDemoProcess.run(["cancel", "--keep"])

    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("called questions(_:whenAbandoned: .finish)"))
    #expect(output.stdout.contains("first caller: CancellationError"))
    #expect(output.stdout.contains("second caller: joined the request still in flight"))
    #expect(output.stdout.contains("got 10 questions"))
    #expect(output.stdout.contains("operation: ran to its end after its only waiter left"))
    #expect(output.stdout.contains("server: 1 request for both callers"))
    #expect(output.stdout.contains("queue: drained"))
  }

  /// A fixed `--after` may cancel before the request leaves or after it arrived; either way
  /// every layer lets go and the command succeeds.
  @Test func cancelAfterAFixedDelayLetsGoWhereverTheRequestWas() async throws {
    let output = try await BridgeDemoProcess.run(["cancel", "--after", "1"])

    #expect(output.status == 0, "\(output.stderr)")
    #expect(
      output.stdout.contains("cancelled the calling task 1.0 ms after it called questions(_:)"))
    #expect(output.stdout.contains("caller: CancellationError"))
    #expect(
      output.stdout.contains("HTTP request: abandoned, the server saw the connection close")
        || output.stdout.contains("HTTP request: never reached the server"))
    #expect(output.stdout.contains("queue: drained"))
  }

  @Test func tourRunsOfflineAndSucceeds() async throws {
    let output = try await BridgeDemoProcess.run([])

    #expect(output.status == 0, "\(output.stderr)")
    let sections = ["== 1. Fetch", "== 2. Coalesce", "== 3. Pages", "== 4. Adopt", "== 5. Cancel"]
    for section in sections + ["Tour done"] {
      #expect(output.stdout.contains(section))
    }
    #expect(
      output.stdout.contains(
        "a legacy Operation subclass, handed the manager's completion handler: 3 titles"))
    let pages = output.stdout.split(separator: "\n").map(String.init)
      .drop { !$0.hasPrefix("== 3. Pages") }.prefix { !$0.hasPrefix("== 4. Adopt") }
    let headings = pages.filter { $0.hasPrefix("  page ") }
    #expect(headings.count == 3, "\(output.stdout)")
    #expect(headings.first?.hasPrefix("  page 1: 3 questions (more available; quota ") == true)
    #expect(headings.dropFirst().first?.hasSuffix("; backoff 1 s)") == true, "\(headings)")
    #expect(headings.last?.hasPrefix("  page 3: 3 questions, after a ") == true, "\(headings)")
    #expect(pages.contains("  backoff: waiting 1 s before requesting page 3, as page 2 asked"))
    #expect(pages.contains("  stopped after page 3, the maxPages asked for, with more available"))
  }
}
