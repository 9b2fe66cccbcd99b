import Foundation

/// The benchmark suite behind `bridge-demo bench [--json] [--quick]`.
///
/// Every scenario with a baseline runs both in this process, interleaved (warm-up pair first,
/// then ours, baseline, ours, baseline… for at least five measured rounds), and reports
/// medians. The table (or, with `json`, exactly one JSON object) goes to standard output;
/// progress goes to standard error.
///
/// `memory` runs last on purpose: it reads the process's peak resident set size (`VmHWM`),
/// which is process-wide. It first returns freed heap to the system (`malloc_trim`) and resets
/// the peak through `/proc/self/clear_refs` when the kernel allows it (`peak_reset`), so
/// earlier scenarios count only through what they still hold; without the reset the peak
/// includes everything that ran before.
enum Benchmark {
  /// Runs every scenario and prints the report.
  ///
  /// - Parameters:
  ///   - json: Print one JSON object (`{"scenarios": [...]}`) instead of the table.
  ///   - quick: Run each scenario at about a tenth of its scale (for CI: it proves the suite
  ///     works in well under a minute; the numbers are not meant to be compared).
  ///   - fixtureBaseURL: Where `network_fanout` sends its requests. nil (the default) starts
  ///     an embedded fixture server with 200 ms latency; a URL must point at a server that
  ///     answers `/questions?site=stackoverflow&page=N` after about 200 ms.
  /// - Returns: The process exit status: 0 when every scenario ran (whether or not it met its
  ///   target; see the `met` column), 1 when a scenario could not run.
  static func run(json: Bool, quick: Bool, fixtureBaseURL: URL? = nil) async -> Int32 {
    let scale = Scale(quick: quick)
    let scenarios: [Scenario] = [
      Scenario(name: "throughput") { try await Throughput.run(scale: $0) },
      Scenario(name: "await_overhead") { try await AwaitOverhead.run(scale: $0) },
      Scenario(name: "await_concurrent") { try await AwaitConcurrent.run(scale: $0) },
      Scenario(name: "coalesce_fanin") { try await CoalesceFanIn.run(scale: $0) },
      Scenario(name: "enqueue_depth") { try await EnqueueDepth.run(scale: $0) },
      Scenario(name: "cancel_latency") { try await CancelLatency.run(scale: $0) },
      Scenario(name: "network_fanout") {
        try await NetworkFanOut.run(scale: $0, baseURL: fixtureBaseURL)
      },
      // Last: it measures the process's peak memory.
      Scenario(name: "memory") { try await Memory.run(scale: $0) },
    ]
    log(
      "bench: \(scenarios.count) scenarios, \(scale.rounds) rounds each"
        + (quick ? " (quick: ~1/10 scale)" : ""))
    let suiteStart = ContinuousClock.now
    var results: [ScenarioResult] = []
    for scenario in scenarios {
      let start = ContinuousClock.now
      log("bench: \(scenario.name)…")
      do {
        results.append(try await scenario.body(scale))
      } catch {
        log("bench: \(scenario.name) failed: \(error)")
        results.append(.failed(scenario.name, error: error))
      }
      log("bench: \(scenario.name) done in \(Report.seconds(since: start))")
    }
    log("bench: finished in \(Report.seconds(since: suiteStart))")
    print(json ? Report.json(results) : Report.table(results))
    return results.contains { $0.error != nil } ? 1 : 0
  }

  /// Writes one line of progress to standard error (standard output carries only the report).
  static func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }
}

extension Benchmark {
  /// How big and how often: full scale, or about a tenth of it with `--quick`.
  struct Scale: Sendable {
    /// Whether the suite runs at about a tenth of its scale.
    let quick: Bool

    /// Measured rounds per scenario (after one warm-up round): 11 at full scale, 5 (the least
    /// the spec allows) in quick mode. On a shared 2-core machine one round's paired ratio
    /// ranges over ±30%; the median of 11 moves far less from run to run than that of 5.
    var rounds: Int { quick ? 5 : 11 }

    /// `full` at full scale, a tenth of it (at least 1) in quick mode.
    func count(_ full: Int) -> Int {
      quick ? Swift.max(1, full / 10) : full
    }
  }

  /// One named scenario and the code that measures it.
  struct Scenario {
    /// The scenario's name in the report.
    let name: String
    /// Measures the scenario.
    let body: (Scale) async throws -> ScenarioResult
  }
}
