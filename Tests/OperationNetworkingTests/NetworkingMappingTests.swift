import Foundation
import OperationCore
import TestSupport
import Testing

@testable import OperationNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Response mapping rules that real HTTP cannot easily produce, without a network.
@Suite struct NetworkingMappingTests {
  private static let url = URL(string: "https://api.example.com/items")!
  private let validation = HTTPResponseValidation(
    decoder: JSONDecoder(), maxResponseBytes: 1_000, serverErrorType: NetworkingAPIError.self)

  private func response(
    status: Int = 200, headers: [String: String] = [:]
  ) -> HTTPURLResponse {
    HTTPURLResponse(
      url: Self.url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
  }

  private func decode(
    _ data: Data?, _ response: URLResponse?
  ) -> Result<NetworkingPayload, NetworkingError> {
    validation.decode(NetworkingPayload.self, data: data, response: response)
  }

  @Test func nilDataWithoutAnErrorIsNoData() {
    guard case .failure(.noData(statusCode: 200)) = decode(nil, response()) else {
      Issue.record("expected noData")
      return
    }
  }

  @Test func aResponseThatIsNotHTTPIsReportedAsSuch() {
    let file = URLResponse(
      url: URL(string: "file:///tmp/x.json")!, mimeType: "application/json",
      expectedContentLength: 2, textEncodingName: nil)
    guard case .failure(let error) = decode(Data("{}".utf8), file),
      case .nonHTTPResponse(let response?) = error
    else {
      Issue.record("expected nonHTTPResponse")
      return
    }
    #expect(response.url == file.url)
    #expect(error.description == "not an HTTP response (URLResponse for file:///tmp/x.json)")
    guard case .failure(.nonHTTPResponse(nil)) = decode(nil, nil) else {
      Issue.record("expected nonHTTPResponse(nil)")
      return
    }
  }

  @Test func announcedLengthOverTheLimitIsRejectedBeforeTheBodyIsLookedAt() {
    let announced = response(headers: ["Content-Length": "5000"])
    guard
      case .failure(.responseTooLarge(byteCount: 5_000, limit: 1_000)) =
        decode(NetworkingFixtures.payload, announced)
    else {
      Issue.record("expected responseTooLarge")
      return
    }
  }

  @Test func oversizedFailingResponseIsTooLargeRatherThanBadStatus() {
    guard
      case .failure(.responseTooLarge(byteCount: 1_001, limit: 1_000)) =
        decode(Data(repeating: 0x20, count: 1_001), response(status: 500))
    else {
      Issue.record("expected responseTooLarge")
      return
    }
  }

  @Test func badStatusWithABodyThatIsNotTheServerErrorTypeHasNoServerError() {
    guard
      case .failure(.badStatus(404, nil, let excerpt)) =
        decode(Data(#"{"message":"nope"}"#.utf8), response(status: 404))
    else {
      Issue.record("expected badStatus")
      return
    }
    #expect(excerpt == #"{"message":"nope"}"#)
  }

  @Test func excerptKeepsTheFirst200BytesAsLossyUTF8() {
    let body = Data(repeating: UInt8(ascii: "x"), count: 199) + Data([0xE2, 0x82])
    let excerpt = HTTPResponseValidation.excerpt(of: body)
    #expect(excerpt.hasPrefix(String(repeating: "x", count: 199)))
    #expect(excerpt.hasSuffix("\u{FFFD}"))
    #expect(excerpt.utf8.count < 205)
  }

  @Test func errorsThatAreNotURLErrorsAreWrappedAsUnknown() {
    struct Odd: Error, CustomStringConvertible { var description: String { "odd failure" } }
    let error = HTTPResponseValidation.transportFailure(Odd())
    guard case .transport(let urlError) = error else {
      Issue.record("expected transport")
      return
    }
    #expect(urlError.code == .unknown)
    #expect(urlError.userInfo[NSUnderlyingErrorKey] is Odd)
    #expect(error.description == "transport error -1 (odd failure)")
  }

  @Test func aForeignCancellationReadsAsSuch() {
    let error = HTTPResponseValidation.transportFailure(URLError(.cancelled))
    #expect(error.description == "transport error -999 (cancelled outside the operation)")
  }

  @Test func customDecodingFailuresBecomeDataCorrupted() {
    struct Strict: Decodable, Sendable {
      struct Rejected: Error {}
      init(from decoder: any Decoder) throws { throw Rejected() }
    }
    let result = validation.decode(Strict.self, data: Data("{}".utf8), response: response())
    guard case .failure(.undecodable(.dataCorrupted(let context), "{}")) = result else {
      Issue.record("expected undecodable")
      return
    }
    #expect(context.underlyingError is Strict.Rejected)
  }

  @Test func timeoutsAreWholeSecondsWhereFractionsWouldBeDropped() {
    var request = URLRequest(url: Self.url)
    request.timeoutInterval = 0.5
    let operation = NetworkingOperation<NetworkingPayload>(
      request: request, session: NetworkingFixtures.session)
    let session = URLSession.makeNetworkingSession(timeout: .milliseconds(1_500))
    let untouched = NetworkingOperation<NetworkingPayload>(
      request: URLRequest(url: Self.url), session: NetworkingFixtures.session)
    #if canImport(FoundationNetworking)
      #expect(operation.request.timeoutInterval == 1)
      #expect(session.configuration.timeoutIntervalForRequest == 2)
    #else
      #expect(operation.request.timeoutInterval == 0.5)
      #expect(session.configuration.timeoutIntervalForRequest == 1.5)
    #endif
    #expect(untouched.request.timeoutInterval == URLRequest(url: Self.url).timeoutInterval)
    #expect(session.configuration.urlCache == nil)
    #expect(session.configuration.requestCachePolicy == .reloadIgnoringLocalCacheData)
  }

  @Test func theConnectionsPerHostAreThePlatformsUnlessRaised() {
    let platformDefault = URLSessionConfiguration.ephemeral.httpMaximumConnectionsPerHost

    #expect(
      URLSession.makeNetworkingSession().configuration.httpMaximumConnectionsPerHost
        == platformDefault)
    #expect(
      URLSession.makeNetworkingSession(maximumConnectionsPerHost: 64).configuration
        .httpMaximumConnectionsPerHost == 64)
  }

  /// Foundation's decoder calls a number it cannot convert "not valid JSON"; a body that is
  /// valid JSON is described as such, and one that is not keeps the decoder's words.
  @Test(arguments: [
    (#"{"name":"x","count":1.5}"#, "valid JSON, but a value does not convert to its type"),
    (#"{"name":"x","count":1e30}"#, "valid JSON, but a value does not convert to its type"),
    (#"{"name":"x","count":"#, "The given data was not valid JSON."),
  ])
  func aNumberThatDoesNotConvertIsNotCalledInvalidJSON(body: String, summary: String) {
    guard case .failure(.undecodable(let error, _)) = decode(Data(body.utf8), response()) else {
      Issue.record("expected undecodable")
      return
    }
    #expect(error.summary.hasPrefix(summary), "\(error.summary)")
  }

  /// A value that does not convert deep in a body (an empty URL string, say) names its field;
  /// a body that is not JSON at all keeps the decoder's words alone.
  @Test func aCorruptedValueNamesWhereItIs() throws {
    struct Page: Decodable {
      struct Item: Decodable { let link: URL }
      let items: [Item]
    }
    let error = try #require(
      #expect(throws: DecodingError.self) {
        try JSONDecoder().decode(Page.self, from: Data(#"{"items":[{"link":""}]}"#.utf8))
      })
    let summary = NetworkingError.undecodable(error, bodyExcerpt: "").description

    #expect(summary.contains("at items[0].link: "), "\(summary)")
  }

  /// Foundation names any code it does not know a "server error"; a code outside HTTP's
  /// range says what it is instead.
  @Test(arguments: [
    (503, "HTTP 503 (service unavailable)"),
    (418, "HTTP 418 (client error)"),
    (999, "HTTP 999 (not an HTTP status code)"),
    (1, "HTTP 1 (not an HTTP status code)"),
  ])
  func aBadStatusIsNamedWithinHTTPsRangeOnly(status: Int, description: String) {
    let error = NetworkingError.badStatus(statusCode: status, serverError: nil, bodyExcerpt: "")

    #expect(error.description == description)
  }

  @Test func descriptionsAreSingleLines() {
    let errors: [NetworkingError] = [
      .transport(URLError(.timedOut)),
      .noData(statusCode: 204),
      .nonHTTPResponse(nil),
      .badStatus(
        statusCode: 400,
        serverError: NetworkingAPIError(
          errorID: 400, errorMessage: "line one\nline two", errorName: "bad_parameter"),
        bodyExcerpt: "{}"),
      .badStatus(statusCode: 502, serverError: nil, bodyExcerpt: ""),
      .undecodable(
        .typeMismatch(
          Int.self,
          .init(
            codingPath: [AnyKey("items"), AnyKey(0), AnyKey("count")],
            debugDescription: "x")),
        bodyExcerpt: "{\n}"),
      .responseTooLarge(byteCount: 11, limit: 10),
    ]
    let descriptions = errors.map(\.description)
    #expect(descriptions.allSatisfy { !$0.contains("\n") && !$0.isEmpty })
    #expect(descriptions[3] == "HTTP 400: bad_parameter: line one line two")
    #expect(descriptions[4] == "HTTP 502 (bad gateway)")
    #expect(
      descriptions[5]
        == "undecodable body: type mismatch at items[0].count: expected Int; body: { }")
    #expect(errors[0].localizedDescription == "transport error -1001 (timed out)")
  }
}

/// A coding key for building decoding errors by hand.
private struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(_ string: String) { stringValue = string }
  init(_ int: Int) {
    stringValue = "\(int)"
    intValue = int
  }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { self.init(intValue) }
}
