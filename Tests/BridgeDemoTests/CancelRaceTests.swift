import FixtureServer
import Foundation
import Testing

/// `cancel --after N` waits for N or for the request to end, whichever comes first.
@Suite struct CancelRaceTests {
  @Test func aRequestAnsweredBeforeTheCancellationEndsTheWait() async throws {
    let fixture = StackExchangeFixture(latency: .milliseconds(50))
    let server = try FixtureHTTPServer(responder: fixture.respond(to:))

    // Far longer than the request takes, even under ThreadSanitizer on a loaded machine.
    let output = try await BridgeDemoProcess.run(
      ["cancel", "--base-url", server.baseURL.absoluteString, "--after", "60000"],
      timeout: .seconds(90))

    #expect(output.status == 1)
    #expect(output.stdout.contains("caller: got the page before the cancellation"))
    #expect(
      output.errorLines == [
        "error: the request finished before the cancellation; try a smaller --after"
      ])
    #expect(output.elapsed < .seconds(45), "the command waited out --after")
  }

  @Test func aRequestThatFailsBeforeTheCancellationEndsTheWait() async throws {
    let server = try FixtureHTTPServer { _ in FixtureResponse(fault: .closeWithoutResponse) }

    let output = try await BridgeDemoProcess.run(
      ["cancel", "--base-url", server.baseURL.absoluteString, "--after", "60000"],
      timeout: .seconds(90))

    #expect(output.status == 1)
    #expect(output.stdout.contains("caller: failed before the cancellation"))
    #expect(
      output.errorLines == [
        "error: the server closed the connection without a response (URLError -1011)"
      ])
    #expect(output.elapsed < .seconds(45), "the command waited out --after")
  }
}
