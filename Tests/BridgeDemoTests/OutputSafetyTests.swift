import FixtureServer
import Foundation
import Testing

/// Standard output and standard error that fail, close or share a file: never a trap, always
/// an exit status that says so, and lines in the order they were written.
@Suite struct OutputSafetyTests {
  @Test func aClosedStandardErrorIsNoTrap() async throws {
    let output = try await BridgeDemoProcess.run(["nope"], streams: .shell(redirections: "2>&-"))

    #expect(output.status == 64)
    #expect(output.stdout.isEmpty)
  }

  @Test func aFullDiskOnStandardOutputExitsWith1AndSaysSo() async throws {
    let output = try await BridgeDemoProcess.run(
      ["questions", "--pagesize", "3"], streams: .shell(redirections: ">/dev/full"))

    #expect(output.status == 1)
    #expect(output.errorLines.count == 1, "\(output.stderr)")
    #expect(output.errorLines.first?.hasPrefix("error: cannot write to standard output") == true)
  }

  @Test func aClosedStandardOutputExitsWith1() async throws {
    let output = try await BridgeDemoProcess.run(["--help"], streams: .shell(redirections: ">&-"))

    #expect(output.status == 1)
    #expect(output.errorLines.first?.hasPrefix("error: cannot write to standard output") == true)
  }

  @Test func aReaderThatWentAwayEndsTheCommandWith1Quietly() async throws {
    let output = try await BridgeDemoProcess.run(
      ["questions", "--pagesize", "3"], streams: .readerless)

    #expect(output.status == 1)
    #expect(output.stderr.isEmpty)
  }

  @Test func theErrorLineFollowsTheReportItConcludes() async throws {
    let server = try FixtureHTTPServer { _ in .json(Data("null".utf8), status: 500) }

    let output = try await BridgeDemoProcess.run(
      ["coalesce", "--callers", "2", "--base-url", server.baseURL.absoluteString],
      streams: .shell(redirections: "2>&1"))

    #expect(output.status == 1)
    let lines = output.stdout.split(separator: "\n").map(String.init)
    let report = try #require(lines.firstIndex { $0.contains("every caller got the page") })
    let error = try #require(lines.firstIndex { $0.hasPrefix("error: ") }, "\(output.stdout)")
    #expect(report < error, "\(output.stdout)")
  }

  @Test func progressStaysOffStandardErrorWhenItIsNotATerminal() async throws {
    let output = try await BridgeDemoProcess.run(["questions", "--pagesize", "1"])

    #expect(output.status == 0)
    #expect(output.stderr.isEmpty)
  }
}
