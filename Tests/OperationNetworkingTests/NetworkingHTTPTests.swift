import FixtureServer
import Foundation
import OperationCore
import OperationNetworking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Real HTTP through URLSession against a loopback server: every response mapping.
@Suite struct NetworkingHTTPTests {
  let server: FixtureHTTPServer
  let manager = OperationQueueManager(name: "networking-http")

  init() throws {
    server = try FixtureHTTPServer { request in
      switch request.path {
      case "/ok": .json(NetworkingFixtures.payload)
      case "/bad-request": .json(NetworkingFixtures.apiError, status: 400)
      case "/unauthorized":
        FixtureResponse(
          status: 401,
          headers: ["Content-Type": "application/json", "WWW-Authenticate": #"Basic realm="api""#],
          body: NetworkingFixtures.apiError)
      case "/unavailable": .html(NetworkingFixtures.html, status: 503)
      case "/empty": .json(Data())
      case "/no-content": FixtureResponse(status: 204)
      case "/invalid-json": .json(Data(#"{"name": "swift", "count": }"#.utf8))
      case "/html": .html(NetworkingFixtures.html)
      case "/wrong-shape": .json(Data(#"{"name":"swift"}"#.utf8))
      case "/large": .json(Data(repeating: 0x20, count: 2_000))
      case "/hang": .hanging
      default: .text("no route for \(request.path)", status: 404)
      }
    }
  }

  private func fetch(
    _ path: String, maxResponseBytes: Int = 10 * 1024 * 1024,
    configure: (inout URLRequest) -> Void = { _ in }
  ) async -> Result<NetworkingPayload, any Error> {
    var request = URLRequest(url: server.url(path))
    configure(&request)
    let operation = NetworkingOperation<NetworkingPayload>(
      request: request, session: NetworkingFixtures.session, maxResponseBytes: maxResponseBytes,
      serverErrorType: NetworkingAPIError.self)
    defer { server.stop() }
    return await networkingResult(of: operation, on: manager)
  }

  @Test func successDecodesTheBody() async throws {
    let result = await fetch("/ok")
    #expect(try result.get() == NetworkingPayload(name: "swift", count: 3))
    #expect(server.requestCount(path: "/ok") == 1)
  }

  @Test func clientErrorCarriesTheParsedServerErrorBody() async throws {
    let error = try #require(await fetch("/bad-request").networkingError)
    guard case .badStatus(let status, let serverError, let excerpt) = error else {
      Issue.record("expected badStatus, got \(error)")
      return
    }
    #expect(status == 400)
    let apiError = try #require(serverError as? NetworkingAPIError)
    #expect(apiError.errorName == "bad_parameter")
    #expect(apiError.errorMessage == "site is required")
    #expect(excerpt.hasPrefix(#"{"error_id":400"#))
    #expect(error.description == "HTTP 400: bad_parameter: site is required")
  }

  /// A 401 asking for Basic credentials the session does not have is the 401, at once, as on
  /// Apple platforms, although swift-corelibs-foundation 6.3.1 alone leaves the request
  /// suspended until its timeout, and then reports a timeout.
  @Test func anUnansweredBasicChallengeIsTheUnauthorizedStatus() async throws {
    let error = try #require(await fetch("/unauthorized").networkingError)
    guard case .badStatus(let status, let serverError, let excerpt) = error else {
      Issue.record("expected badStatus, got \(error)")
      return
    }
    #expect(status == 401)
    #expect((serverError as? NetworkingAPIError)?.errorName == "bad_parameter")
    #expect(excerpt.hasPrefix(#"{"error_id":400"#))
    #expect(server.requestCount(path: "/unauthorized") == 1)
  }

  /// A task other code runs on such a session (with a completion handler, so the delegate was
  /// not told about it) is not left waiting forever by the same challenge, which corelibs
  /// 6.3.1 would do even past the session's timeout: it ends cancelled.
  @Test func anotherTasksUnanswerableChallengeEndsIt() async throws {
    let codes = Recorder<Int?>()
    NetworkingFixtures.session.dataTask(with: server.url("/unauthorized")) { _, _, error in
      codes.record((error as? URLError)?.errorCode)
    }.resume()
    #expect(await codes.wait(forCount: 1))
    #expect(codes.values.first == URLError.cancelled.rawValue)
    server.stop()
  }

  @Test func serverErrorWithHTMLKeepsTheStatusAndAnExcerpt() async throws {
    let error = try #require(await fetch("/unavailable").networkingError)
    guard case .badStatus(let status, let serverError, let excerpt) = error else {
      Issue.record("expected badStatus, got \(error)")
      return
    }
    #expect(status == 503)
    #expect(serverError == nil)
    #expect(excerpt.hasPrefix("<html>\n<head><title>503"))
    #expect(
      error.description == "HTTP 503 (service unavailable): "
        + "<html> <head><title>503 Service Unavailable</title></head> <body>down</body></ht…")
  }

  @Test func emptyBodyWithStatus200IsNoData() async throws {
    let error = try #require(await fetch("/empty").networkingError)
    guard case .noData(statusCode: 200) = error else {
      Issue.record("expected noData(200), got \(error)")
      return
    }
    #expect(error.description == "HTTP 200 with an empty body where JSON was expected")
  }

  @Test func status204IsNoData() async throws {
    let error = try #require(await fetch("/no-content").networkingError)
    guard case .noData(statusCode: 204) = error else {
      Issue.record("expected noData(204), got \(error)")
      return
    }
  }

  @Test func invalidJSONIsUndecodableWithAnExcerpt() async throws {
    let error = try #require(await fetch("/invalid-json").networkingError)
    guard case .undecodable(.dataCorrupted, let excerpt) = error else {
      Issue.record("expected undecodable(dataCorrupted), got \(error)")
      return
    }
    #expect(excerpt == #"{"name": "swift", "count": }"#)
    #expect(error.description.hasPrefix("undecodable body: The given data was not valid JSON."))
    #expect(error.description.hasSuffix(#"; body: {"name": "swift", "count": }"#))
  }

  @Test func htmlWhereJSONIsExpectedIsUndecodable() async throws {
    let error = try #require(await fetch("/html").networkingError)
    guard case .undecodable(.dataCorrupted, let excerpt) = error else {
      Issue.record("expected undecodable(dataCorrupted), got \(error)")
      return
    }
    #expect(excerpt.hasPrefix("<html>"))
    #expect(error.description.contains("; body: <html> <head>"))
  }

  @Test func jsonOfTheWrongShapeNamesTheMissingKey() async throws {
    let error = try #require(await fetch("/wrong-shape").networkingError)
    guard case .undecodable(.keyNotFound, _) = error else {
      Issue.record("expected undecodable(keyNotFound), got \(error)")
      return
    }
    #expect(
      error.description
        == #"undecodable body: missing key "count" at top level; body: {"name":"swift"}"#)
  }

  @Test func announcedLengthOverTheLimitIsRejected() async throws {
    let error = try #require(await fetch("/large", maxResponseBytes: 1_000).networkingError)
    guard case .responseTooLarge(byteCount: 2_000, limit: 1_000) = error else {
      Issue.record("expected responseTooLarge, got \(error)")
      return
    }
    #expect(error.description == "response too large: 2000 bytes, limit 1000")
  }

  @Test func unannouncedBodyOverTheLimitIsRejectedOnArrival() async throws {
    let server = try FixtureHTTPServer { _ in
      FixtureResponse(body: Data(repeating: 0x20, count: 2_000), fault: .closeDelimited)
    }
    let operation = NetworkingOperation<NetworkingPayload>(
      request: URLRequest(url: server.url("/close-delimited")), session: NetworkingFixtures.session,
      maxResponseBytes: 1_000)
    let error = try #require(await networkingResult(of: operation, on: manager).networkingError)
    guard case .responseTooLarge(byteCount: 2_000, limit: 1_000) = error else {
      Issue.record("expected responseTooLarge, got \(error)")
      return
    }
  }

  @Test func connectionRefusedIsATransportErrorKeepingItsCode() async throws {
    let closedPort = try LoopbackSocket.bound(listening: false)
    defer { closedPort.closeSocket() }
    let request = URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort.port)/ok")!)
    let operation = NetworkingOperation<NetworkingPayload>(
      request: request, session: NetworkingFixtures.session)
    let error = try #require(await networkingResult(of: operation, on: manager).networkingError)
    guard case .transport(let urlError) = error else {
      Issue.record("expected transport, got \(error)")
      return
    }
    #expect(urlError.code == .cannotConnectToHost)
    #expect(error.description == "transport error -1004 (cannot connect to host)")
    server.stop()
  }

  /// A redirect to a server that refuses the connection fails naming the redirect's target,
  /// as on Apple platforms, although swift-corelibs-foundation 6.3.1 names the URL first
  /// requested, which would blame the server that had answered.
  @Test func aFailureAfterARedirectNamesTheRedirectsTarget() async throws {
    let closedPort = try LoopbackSocket.bound(listening: false)
    defer { closedPort.closeSocket() }
    let target = try #require(URL(string: "http://127.0.0.1:\(closedPort.port)/moved-here"))
    let redirecting = try FixtureHTTPServer { _ in
      FixtureResponse(status: 302, headers: ["Location": target.absoluteString])
    }
    defer { redirecting.stop() }
    let operation = NetworkingOperation<NetworkingPayload>(
      request: URLRequest(url: redirecting.url("/old")), session: NetworkingFixtures.session)
    let error = try #require(await networkingResult(of: operation, on: manager).networkingError)
    guard case .transport(let urlError) = error else {
      Issue.record("expected transport, got \(error)")
      return
    }
    #expect(urlError.code == .cannotConnectToHost)
    #expect(urlError.failingURL == target)
    // The string form agrees (read through its key: `failureURLString` is deprecated).
    #expect(urlError.userInfo["NSErrorFailingURLStringKey"] as? String == target.absoluteString)
    #expect(redirecting.requestCount(path: "/old") == 1)
    server.stop()
  }

  /// A timeout of `Int64.max` seconds (or a request's own) traps in swift-corelibs-foundation
  /// as the request starts; it is held to a century, and a width below one to one.
  @Test func anOutsizedTimeoutOrWidthStillMakesRequests() async throws {
    let session = URLSession.makeNetworkingSession(
      timeout: .seconds(Int64.max), maximumConnectionsPerHost: -3)
    #expect(session.configuration.timeoutIntervalForRequest == 100 * 365 * 24 * 3600)
    #expect(session.configuration.httpMaximumConnectionsPerHost == 1)
    var request = URLRequest(url: server.url("/ok"))
    request.timeoutInterval = .greatestFiniteMagnitude

    for request in [URLRequest(url: server.url("/ok")), request] {
      let operation = NetworkingOperation<NetworkingPayload>(request: request, session: session)
      let value = try await networkingResult(of: operation, on: manager).get()
      #expect(value == NetworkingPayload(name: "swift", count: 3))
    }
    server.stop()
  }

  @Test func requestTimeoutIsATransportTimeout() async throws {
    let started = ContinuousClock.now
    let error = try #require(
      await fetch("/hang") { $0.timeoutInterval = 1 }.networkingError)
    guard case .transport(let urlError) = error else {
      Issue.record("expected transport, got \(error)")
      return
    }
    #expect(urlError.code == .timedOut)
    #expect(error.description == "transport error -1001 (timed out)")
    // The 1 s limit applies, not the default 60 s: far below that even under ThreadSanitizer
    // on a loaded machine, where corelibs notices the expiry late.
    #expect(ContinuousClock.now - started < .seconds(30))
  }
}
