import Foundation
import Testing

@testable import Benchmarks

/// The report's shape: a table that fits 100 columns and one JSON object with every figure.
@Suite struct ReportTests {
  /// A result whose target and details are longer than any real one.
  private static let long = Benchmark.ScenarioResult(
    name: "cancel_coalesced",
    nsPerOp: 83_630,
    baseline: "the same cancellation storm over N distinct operations",
    baselineNsPerOp: 4_330,
    ratio: 19.3,
    target: "run, perform <= 1.2x actor",
    met: false,
    extras: [
      ("points", .array([.integer(1_000), .integer(3_000)])),
      ("run_executions", .array([.integer(1), .integer(2)])),
      ("method", .string("mallinfo2")),
      ("missing", .number(nil)),
    ],
    details: "N waiters cancelled via their parent, coalesced vs distinct: "
      + String(repeating: "1000: 11.1 ms vs 3.7 ms (3.01); ", count: 12)
      + "a-single-word-longer-than-the-whole-table-" + String(repeating: "x", count: 120))

  @Test func tableLinesFitOneHundredColumns() {
    let table = Benchmark.Report.table([Self.long, .failed("memory", error: CancellationError())])
    let lines = table.split(separator: "\n", omittingEmptySubsequences: false)

    #expect(lines.count > 4, "the long details wrap onto several lines")
    for line in lines {
      #expect(line.count <= Benchmark.Report.tableWidth, "\(line.count) columns: \(line)")
    }
    #expect(lines[2].hasPrefix("cancel_coalesced  83.63 µs"))
    #expect(lines[3].hasPrefix("  N waiters cancelled"))
    #expect(lines[4].hasPrefix("    "))
  }

  @Test func wrapKeepsEveryWordInOrder() {
    let text = "  one two three four five six seven eight nine ten"
    let lines = Benchmark.Report.wrap(text, width: 16, indent: "    ")

    #expect(
      lines == ["  one two three", "    four five", "    six seven", "    eight nine", "    ten"])
  }

  @Test func jsonIsOneObjectWithArraysAndNulls() throws {
    let json = Benchmark.Report.json([Self.long])

    #expect(!json.contains("\n"))
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let scenarios = try #require(object["scenarios"] as? [[String: Any]])
    #expect(scenarios.count == 1)
    #expect(scenarios[0]["run_executions"] as? [Int] == [1, 2])
    #expect(scenarios[0]["points"] as? [Int] == [1_000, 3_000])
    #expect(scenarios[0]["method"] as? String == "mallinfo2")
    #expect(scenarios[0]["missing"] is NSNull)
    #expect(scenarios[0]["met"] as? Bool == false)
  }

  @Test func histogramCountsRoundsPerValue() {
    #expect(Benchmark.CoalesceFanIn.histogram([1, 2, 1, 1, 3, 2]) == "1x3 2x2 3x1")
    #expect(Benchmark.CoalesceFanIn.histogram([]) == "")
  }
}
