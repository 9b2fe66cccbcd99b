import FixtureServer
import Foundation
import Testing

/// The command-line conventions: `--version`, usage errors with the usage line, help that fits
/// 80 columns, `--` ending the options, and wording a reader does not trip over.
@Suite struct ConventionsTests {
  @Test func versionPrintsTheToolAndItsVersion() async throws {
    let output = try await BridgeDemoProcess.run(["--version"])

    #expect(output.status == 0)
    #expect(output.stdout.hasPrefix("bridge-demo "))
    #expect(output.stdout.split(separator: "\n").count == 1)
    #expect(output.stderr.isEmpty)
  }

  @Test func aUsageErrorShowsTheCommandsUsageAndWhereToLook() async throws {
    let output = try await BridgeDemoProcess.run(["questions", "--pagesize"])

    #expect(output.status == 64)
    #expect(output.stdout.isEmpty)
    #expect(
      output.errorLines == [
        "error: missing value for --pagesize",
        "usage: bridge-demo questions [--base-url <url>] [--site <name>] [--pagesize <n>]",
        "       [--pages <n>] [--json]",
        "see 'bridge-demo questions --help'",
      ])
  }

  @Test(arguments: [[], ["questions"], ["coalesce"], ["cancel"], ["bench"], ["tour"]])
  func helpFitsEightyColumnsWhenNotATerminal(command: [String]) async throws {
    let output = try await BridgeDemoProcess.run(command + ["--help"])

    #expect(output.status == 0)
    let long = output.stdout.split(separator: "\n").filter { $0.count > 80 }
    #expect(long.isEmpty, "\(long)")
  }

  @Test func helpBeforeACommandShowsThatCommandsHelp() async throws {
    let output = try await BridgeDemoProcess.run(["--help", "questions"])

    #expect(output.status == 0)
    #expect(output.stdout.contains("USAGE: bridge-demo questions"))
  }

  @Test func doubleDashEndsTheOptions() async throws {
    let accepted = try await BridgeDemoProcess.run(["questions", "--pagesize", "1", "--"])
    let operand = try await BridgeDemoProcess.run(["questions", "--", "--help"])

    #expect(accepted.status == 0, "\(accepted.stderr)")
    #expect(operand.status == 64)
    #expect(operand.errorLines.first == "error: unexpected argument '--help'")
  }

  @Test func anUpperCaseSchemeIsAccepted() async throws {
    let fixture = StackExchangeFixture()
    let server = try FixtureHTTPServer(responder: fixture.respond(to:))

    let output = try await BridgeDemoProcess.run([
      "questions", "--pagesize", "1", "--base-url", "HTTP://127.0.0.1:\(server.port)",
    ])

    #expect(output.status == 0, "\(output.stderr)")
  }

  @Test(arguments: [
    "http://127.0.0.1:0", "http://127.0.0.1:65536", "http://127.0.0.1:99999", "http://a..b",
    "http://-a.example", "http://a_b.example", "http://999.1.1.1", "http://1.2.3",
  ])
  func badPortsAndHostsAreUsageErrors(url: String) async throws {
    let output = try await BridgeDemoProcess.run(["questions", "--base-url", url])

    #expect(output.status == 64, "\(output.stderr)")
    #expect(output.errorLines.first?.hasPrefix("error: invalid value") == true)
  }

  @Test func oneCallerReadsInTheSingular() async throws {
    let output = try await BridgeDemoProcess.run(["coalesce", "--callers", "1"])

    #expect(output.status == 0)
    #expect(output.stdout.contains("1 caller asked for the page"))
    #expect(!output.stdout.contains("1 callers"))
    #expect(!output.stdout.contains("all 1 were"))
  }

  @Test func benchHelpSaysWhatTheExitStatusMeans() async throws {
    let output = try await BridgeDemoProcess.run(["bench", "--help"])

    #expect(output.stdout.contains("--fail-on-miss"))
    #expect(output.stdout.contains("EXIT STATUS"))
  }

  @Test func textShowsTheQuotaAndTheBackoff() async throws {
    let fixture = StackExchangeFixture(backoff: 10, quotaMax: 300)
    let server = try FixtureHTTPServer(responder: fixture.respond(to:))

    let output = try await BridgeDemoProcess.run([
      "questions", "--pagesize", "2", "--base-url", server.baseURL.absoluteString,
    ])

    #expect(output.status == 0)
    #expect(output.stdout.contains("quota 299 of 300 left"))
    #expect(output.stdout.contains("backoff 10 s"), "\(output.stdout)")
  }

  @Test func jsonCarriesTheQuotaAndTheBackoff() async throws {
    let fixture = StackExchangeFixture(backoff: 10, quotaMax: 300)
    let server = try FixtureHTTPServer(responder: fixture.respond(to:))

    let output = try await BridgeDemoProcess.run([
      "questions", "--json", "--pagesize", "2", "--base-url", server.baseURL.absoluteString,
    ])

    #expect(output.status == 0)
    let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
    let page = try #require(json as? [String: Any])
    #expect((page["items"] as? [[String: Any]])?.count == 2)
    #expect(page["quota_remaining"] as? Int == 299)
    #expect(page["quota_max"] as? Int == 300)
    #expect(page["backoff"] as? Int == 10)
  }
}
