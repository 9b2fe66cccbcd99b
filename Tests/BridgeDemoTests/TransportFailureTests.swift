import FixtureServer
import Foundation
import TestSupport
import Testing

/// Transport failures read as one sentence that keeps the `URLError` code, never as a raw
/// `NSError` description; timeouts read the same whichever limit expired.
@Suite struct TransportFailureTests {
  /// The one error line of `questions` against `baseURL`, after checking the exit status.
  private func errorLine(baseURL: String) async throws -> String {
    let output = try await BridgeDemoProcess.run(["questions", "--base-url", baseURL])
    #expect(output.status == 1)
    #expect(output.stdout.isEmpty)
    #expect(output.errorLines.count == 1, "\(output.stderr)")
    return try #require(output.errorLines.first)
  }

  @Test func aBodyShorterThanItsContentLength() async throws {
    let body = Data(#"{"items": []}"#.utf8)
    let server = try FixtureHTTPServer { _ in FixtureResponse(body: body, fault: .shortBody) }

    let line = try await errorLine(baseURL: server.baseURL.absoluteString)

    #expect(
      line.hasPrefix("error: the connection closed before the whole body arrived"), "\(line)")
    #expect(line.hasSuffix("(URLError -1)"), "\(line)")
  }

  @Test func aPlainBodyLabelledGzip() async throws {
    let body = Data(#"{"items": [], "has_more": false}"#.utf8)
    let server = try CannedServer(
      response: CannedServer.response(
        headers: ["Content-Encoding: gzip", "Content-Length: \(body.count)"], body: body))

    let line = try await errorLine(baseURL: server.baseURL.absoluteString)

    #expect(
      line == "error: the response body could not be decompressed (URLError -1)", "\(line)")
  }

  @Test func httpsToAnHTTPPort() async throws {
    let body = Data("plain".utf8)
    let server = try CannedServer(
      response: CannedServer.response(headers: ["Content-Length: \(body.count)"], body: body))
    let port = try #require(server.baseURL.port)

    let line = try await errorLine(baseURL: "https://127.0.0.1:\(port)")

    #expect(
      line
        == "error: the TLS handshake failed; is the server speaking plain HTTP? (URLError -1)",
      "\(line)")
  }

  @Test func aResetMidBody() async throws {
    let body = Data(repeating: 0x20, count: 4096)
    let server = try FixtureHTTPServer { _ in FixtureResponse(body: body, fault: .resetMidBody) }

    let line = try await errorLine(baseURL: server.baseURL.absoluteString)

    #expect(
      line == "error: the connection closed before the whole response arrived (URLError -1005)",
      "\(line)")
  }

  @Test func aCloseWithoutAResponse() async throws {
    let server = try FixtureHTTPServer { _ in FixtureResponse(fault: .closeWithoutResponse) }

    let line = try await errorLine(baseURL: server.baseURL.absoluteString)

    #expect(
      line == "error: the server closed the connection without a response (URLError -1011)",
      "\(line)")
  }

  @Test func aRefusedConnection() async throws {
    // Bound but not listening: refused for as long as it lives, unlike a stopped server's port.
    let refusing = try LoopbackSocket.bound(listening: false)
    defer { refusing.closeSocket() }

    let line = try await errorLine(baseURL: "http://127.0.0.1:\(refusing.port)")

    #expect(
      line == "error: could not connect to 127.0.0.1:\(refusing.port) (URLError -1004)",
      "\(line)")
  }

  /// The session's idle timeout (15 s) expires long before `--after`.
  @Test func aServerThatNeverAnswersTimesOutWithTheLimitNamed() async throws {
    let server = try CannedServer(response: nil)

    let output = try await BridgeDemoProcess.run(
      ["cancel", "--base-url", server.baseURL.absoluteString, "--after", "60000"],
      timeout: .seconds(55))

    #expect(output.status == 1)
    #expect(output.errorLines == ["error: the request timed out after 15 s"])
    // Well short of `--after`'s 60 s, with room for a loaded machine to start the process.
    #expect(output.elapsed < .seconds(50))
  }
}
