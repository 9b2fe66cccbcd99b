import Foundation
import OperationCore
import OperationNetworking
import StackExchange
import Testing

@testable import bridge_demo

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct FailureDescriptionTests {
  @Test func bothTimeoutsReadTheSameAndNameTheLimitThatExpired() {
    let operationTimeout = OperationTimeoutError(
      timeout: .seconds(30), operationName: "FetchQuestionsOperation")
    #expect(FailureDescription.oneLine(operationTimeout) == "the request timed out after 30 s")
    #expect(
      FailureDescription.oneLine(NetworkingError.transport(URLError(.timedOut)))
        == "the request timed out after 15 s")
    #expect(
      FailureDescription.oneLine(OperationTimeoutError(timeout: .milliseconds(1500)))
        == "the request timed out after 1.5 s")
  }

  @Test func anUnmappedTransportErrorKeepsItsCodeAndStaysShort() {
    let underlying = NSError(
      domain: NSURLErrorDomain, code: -1,
      userInfo: [NSLocalizedDescriptionKey: "something curl said\nover two lines"])
    let error = URLError(.unknown, userInfo: [NSUnderlyingErrorKey: underlying])

    #expect(
      FailureDescription.oneLine(NetworkingError.transport(error))
        == "the request failed: something curl said over two lines (URLError -1)")
  }

  /// -1002 for an http or https URL means the answer was not HTTP; for another scheme, the
  /// scheme.
  @Test(arguments: [
    ("http://127.0.0.1:8080/questions", "the server's answer is not HTTP (URLError -1002)"),
    ("HTTPS://example.com/", "the server's answer is not HTTP (URLError -1002)"),
    ("ftp://example.com/", "the request URL's scheme is not supported (URLError -1002)"),
  ])
  func anUnsupportedURLErrorIsReadByTheURLsScheme(url: String, line: String) throws {
    let failingURL = try #require(URL(string: url))
    let error = URLError(.unsupportedURL, userInfo: [NSURLErrorFailingURLErrorKey: failingURL])

    #expect(FailureDescription.oneLine(NetworkingError.transport(error)) == line)
  }

  /// An API error body whose name and message are empty says nothing: the line falls back on
  /// the status and the body, never `HTTP 400 : `; one part missing leaves no dangling colon.
  @Test(arguments: [
    ("", "", #"HTTP 400 (bad request): {"error_id":400}"#),
    ("bad_parameter", "", "HTTP 400 bad_parameter"),
    ("", "site is required", "HTTP 400 site is required"),
  ])
  func anAPIErrorWithoutWordsFallsBackOnTheStatus(name: String, message: String, line: String) {
    let apiError = StackExchangeAPIError(errorID: 400, errorMessage: message, errorName: name)
    let error = NetworkingError.badStatus(
      statusCode: 400, serverError: apiError, bodyExcerpt: #"{"error_id":400}"#)

    #expect(FailureDescription.oneLine(error) == line)
  }

  /// libcurl's "Out of memory" is what it says of a response header over 100 KB: the line
  /// says so rather than leaving the reader to suspect the machine.
  @Test func libcurlsOutOfMemoryMentionsAnOversizedHeader() {
    let underlying = NSError(
      domain: NSURLErrorDomain, code: -1, userInfo: [NSLocalizedDescriptionKey: "Out of memory"])
    let error = URLError(.unknown, userInfo: [NSUnderlyingErrorKey: underlying])

    #expect(
      FailureDescription.oneLine(NetworkingError.transport(error))
        == #"the response could not be read: libcurl reported "Out of memory", as it does for a "#
        + "response header over 100 KB (URLError -1)")
  }

  /// libcurl's write errors are what corelibs makes of a header line it cannot parse, or of a
  /// compressed body with data after its end: the line names what was wrong with the response,
  /// not a disk.
  @Test(arguments: [
    (
      "Failed writing header",
      #"the response's header could not be read: libcurl reported "Failed writing header", "#
        + "as it does when this platform's URLSession cannot parse a header line (URLError -1)"
    ),
    (
      "Failed writing received data to disk/application",
      #"the response body could not be read: libcurl reported "Failed writing received data to "#
        + #"disk/application", as it does for a compressed body with data after its end "#
        + "(URLError -1)"
    ),
  ])
  func libcurlsWriteErrorsNameTheResponse(message: String, line: String) {
    let underlying = NSError(
      domain: NSURLErrorDomain, code: -1, userInfo: [NSLocalizedDescriptionKey: message])
    let error = URLError(.unknown, userInfo: [NSUnderlyingErrorKey: underlying])

    #expect(FailureDescription.oneLine(NetworkingError.transport(error)) == line)
  }

  /// -1000 for a URL whose host is an IPv6 address is corelibs' URLSession refusing the
  /// address (a platform defect), not a malformed URL: the line says what to use instead.
  @Test(arguments: [
    (
      "http://[::1]:8080/questions",
      "this platform's URLSession does not accept an IPv6 address as the host; use a host name "
        + "(such as localhost) instead (URLError -1000)"
    ),
    ("http://127.0.0.1:8080/questions", "the request URL is not valid (URLError -1000)"),
  ])
  func aBadURLErrorNamesAnIPv6Host(url: String, line: String) throws {
    let failingURL = try #require(URL(string: url))
    let error = URLError(.badURL, userInfo: [NSURLErrorFailingURLErrorKey: failingURL])

    #expect(FailureDescription.oneLine(NetworkingError.transport(error)) == line)
  }

  /// libcurl's -1002 for a redirect to a scheme it does not speak names the protocol: the line
  /// says the server redirected, not that its answer was not HTTP.
  /// Whichever URL the error names: the request's (as corelibs does) or the redirect's
  /// target (as the networking session names it).
  @Test(arguments: ["http://127.0.0.1:8080/questions", "ftp://127.0.0.1:1/x"])
  func aRedirectToAnUnsupportedSchemeSaysSo(failing: String) throws {
    let failingURL = try #require(URL(string: failing))
    let underlying = NSError(
      domain: NSURLErrorDomain, code: -1,
      userInfo: [NSLocalizedDescriptionKey: #"Protocol "ftp" not supported or disabled in libcurl"#]
    )
    let error = URLError(
      .unsupportedURL,
      userInfo: [NSURLErrorFailingURLErrorKey: failingURL, NSUnderlyingErrorKey: underlying])

    #expect(
      FailureDescription.oneLine(NetworkingError.transport(error))
        == "the server redirected to a URL whose scheme is not supported: "
        + #"Protocol "ftp" not supported or disabled in libcurl (URLError -1002)"#)
  }

  /// Durations read from their components: rounded to the millisecond, tenths of a second cut,
  /// and a duration far past `Int.max` milliseconds printed rather than trapping.
  @Test(arguments: [
    (Duration.milliseconds(200), "200 ms"),
    (.microseconds(999_600), "1 s"),
    (.milliseconds(1500), "1.5 s"),
    (.milliseconds(1050), "1.0 s"),
    (.seconds(15), "15 s"),
    (.seconds(Int64.max), "9223372036854775807 s"),
  ])
  func durationsReadAsTheyWouldBeSaid(duration: Duration, text: String) {
    #expect(FailureDescription.duration(duration) == text)
  }

  @Test func aBackoffTooLongToWaitOutNamesTheLimit() {
    let error = BackoffError(site: "stackoverflow", retryAfter: .seconds(3600))

    #expect(
      FailureDescription.oneLine(error)
        == "the API asked to back off: no /questions call on stackoverflow for another 3600 s, "
        + "more than the 60 s the demo waits")
    #expect(
      FailureDescription.oneLine(BackoffError(site: "stackoverflow", retryAfter: .seconds(60)))
        == "the API asked to back off: no /questions call on stackoverflow for another 60 s")
  }
}
