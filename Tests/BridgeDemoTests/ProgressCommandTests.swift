import Foundation
import OperationCore
import Testing

@testable import bridge_demo

/// `bridge-demo progress`: one slow request feeds two callers' progress; the bar appears on
/// standard error only when it is a terminal, and never with `--json`.
@Suite struct ProgressCommandTests {
  @Test func argumentsParse() throws {
    #expect(try Arguments.parse(["progress"]) == .progress(ProgressOptions()))
    #expect(try Arguments.parse(["progress", "--json"]) == .progress(ProgressOptions(json: true)))
  }

  @Test func inAPipeTheReportHasNoBar() async throws {
    let output = try await BridgeDemoProcess.run(["progress"])

    #expect(output.status == 0)
    #expect(output.stderr.isEmpty)
    #expect(!output.stdout.contains("\u{1B}"))
    #expect(output.stdout.contains("HTTP requests: 1 (counted by the embedded server)"))
    #expect(output.stdout.contains("every caller got the page: yes"))
    let last = try #require(
      output.stdout.split(separator: "\n").first { $0.contains("last value") })
    let numbers = last.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    #expect(numbers.count == 2 && numbers[0] == numbers[1] && numbers[0] > 0, "\(last)")
  }

  @Test func jsonReportsOneRequestAndTheWholeBody() async throws {
    let output = try await BridgeDemoProcess.run(["progress", "--json"])

    #expect(output.status == 0)
    #expect(output.stderr.isEmpty)
    let object = try #require(
      JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    #expect(object["http_requests"] as? Int == 1)
    #expect(object["same_page"] as? Bool == true)
    #expect(object["bytes"] as? Int == object["total_bytes"] as? Int)
    let updates = try #require(object["progress_updates"] as? [Int])
    #expect(!updates.isEmpty && updates.allSatisfy { $0 > 0 }, "\(updates)")
  }

  @Test(.enabled(if: PseudoTerminal.isAvailable))
  func onATerminalTheBarIsDrawnAndErased() async throws {
    let output = try await BridgeDemoProcess.run(["progress"], streams: .terminal(columns: 100))

    #expect(output.status == 0)
    #expect(output.stdout.contains("\r\u{1B}[Ktry await ["))
    #expect(output.stdout.contains("completion handler ["))
    #expect(output.stdout.contains("every caller got the page: yes"))
  }

  @Test(.enabled(if: PseudoTerminal.isAvailable))
  func withJSONOnATerminalNoBarIsDrawn() async throws {
    let output = try await BridgeDemoProcess.run(
      ["progress", "--json"], streams: .terminal(columns: 100))

    #expect(output.status == 0)
    #expect(!output.stdout.contains("\u{1B}"))
    #expect(output.stdout.hasPrefix("{"))
  }

  @Test func theLineFitsTheTerminalAndShowsEachCallersShare() {
    let labels = ProgressCommand.callerNames
    let half = OperationProgress(completed: 10_000, total: 20_000)
    let line = ProgressBar.line(labels: labels, values: [half, nil], width: 100)
    #expect(line.count < 100)
    #expect(line.hasPrefix("try await ["))
    #expect(line.contains("]  50%"))
    #expect(line.contains("completion handler ["))
    #expect(line.hasSuffix("10.0 of 20.0 kB"))
    #expect(ProgressBar.line(labels: labels, values: [half, half], width: 40).count < 40)
    let unknown = OperationProgress(completed: 1_500, total: nil)
    #expect(
      ProgressBar.line(labels: labels, values: [unknown, unknown], width: 100).hasSuffix(" 1.5 kB"))
  }
}
