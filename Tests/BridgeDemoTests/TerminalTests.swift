import FixtureServer
import Foundation
import Testing

/// On a terminal: progress for long waits, erased when they end, and help as wide as the
/// window.
@Suite(.enabled(if: PseudoTerminal.isAvailable)) struct TerminalTests {
  /// The wait lasts 2.5 s, so the progress line's first tick (at 1 s) shows even if the
  /// process is held up for a while around it.
  @Test func progressShowsWhileTheWaitLastsAndIsErasedAfterIt() async throws {
    let output = try await BridgeDemoProcess.run(
      ["cancel", "--after", "2500"], streams: .terminal(columns: 100))

    #expect(output.status == 0, "\(output.stdout)")
    #expect(output.stdout.contains("\r\u{1B}[Kbridge-demo: GET http://127.0.0.1:"))
    #expect(output.stdout.contains(" … 1 s"))
    #expect(output.stdout.contains("\r\u{1B}[Kcancelled the calling task 2500 ms after"))
  }

  /// A 2 s backoff on page 1 outlasts the progress line's first second.
  @Test func progressShowsWhilePagesWaitForABackoff() async throws {
    let fixture = StackExchangeFixture(pageBackoffs: [1: 2])
    let server = try FixtureHTTPServer(responder: fixture.respond(to:))

    let output = try await BridgeDemoProcess.run(
      [
        "questions", "--pages", "2", "--pagesize", "1", "--base-url", server.baseURL.absoluteString,
      ],
      streams: .terminal(columns: 160))

    #expect(output.status == 0, "\(output.stdout)")
    #expect(
      output.stdout.contains(
        "backoff: waiting 2 s before requesting page 2, as page 1 asked\n"
          + "\r\u{1B}[Kbridge-demo: waiting for a 2 s backoff, then GET http://127.0.0.1:"),
      "\(output.stdout)")
    let progress = output.stdout.split(separator: "\r").filter { $0.contains("bridge-demo: ") }
    #expect(progress.contains { $0.contains("page=2") && $0.hasSuffix(" … 1 s") }, "\(progress)")
    #expect(output.stdout.contains("\r\u{1B}[K\npage 2: 1 question, after a "))
  }

  @Test func helpWrapsToTheWindowsWidth() async throws {
    let output = try await BridgeDemoProcess.run(["--help"], streams: .terminal(columns: 60))

    #expect(output.status == 0)
    let lines = output.stdout.split(separator: "\n")
    #expect(lines.contains { $0.count > 50 })
    #expect(lines.allSatisfy { $0.count <= 60 || !$0.contains(" ") }, "\(lines)")
  }
}
