import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The benchmark suite behind `bridge-demo bench [--json] [--quick]`.
///
/// Every scenario with a baseline runs all its sides in this process, interleaved (a warm-up
/// round first, then the sides in turn, their order rotating from round to round), and
/// reports medians. The table (or, with `json`, exactly one JSON object) goes to standard
/// output; progress goes to standard error.
///
/// `memory` runs first on purpose: it reads the process's peak resident set size (`VmHWM`), which
/// is process-wide, and the later scenarios' storms of 10,000 to 100,000 tasks leave the allocator
/// holding memory that `malloc_trim` cannot hand back (docs/PERFORMANCE.md). Run first, its peak is
/// its own operations' plus the runtime's and Foundation's. It still returns freed heap to the
/// system (`malloc_trim`) and resets the peak through `/proc/self/clear_refs` when the kernel
/// allows it (`peak_reset`), so that it measures the same under `BENCH_ONLY`.
public enum Benchmark {
  /// Runs every scenario and prints the report.
  ///
  /// Nothing is cancellable: the suite runs to its end (a scenario that cannot finish its
  /// set-up in time fails with a timeout and the next one runs).
  ///
  /// - Parameters:
  ///   - json: Print one JSON object (`{"scenarios": [...]}`) instead of the table.
  ///   - quick: Run each scenario at about a tenth of its scale (for CI: it proves the suite
  ///     works in under a minute; the numbers are not meant to be compared).
  ///   - failOnMiss: Also fail (return 1) when a scenario ran but missed its target.
  ///   - fixtureBaseURL: Where `network_fanout` sends its requests. nil (the default) starts
  ///     an embedded fixture server with 200 ms latency; a URL must point at a server that
  ///     answers `/questions?site=stackoverflow&page=N` after about 200 ms.
  /// - Returns: The process exit status: 0 when every scenario ran (and, with `failOnMiss`,
  ///   met its target), 1 otherwise.
  public static func run(
    json: Bool, quick: Bool, failOnMiss: Bool = false, fixtureBaseURL: URL? = nil
  ) async -> Int32 {
    let scale = Scale(quick: quick)
    let allScenarios: [Scenario] = [
      // First: it measures the process's peak memory.
      Scenario(name: "memory") { try await Memory.run(scale: $0) },
      Scenario(name: "throughput") { try await Throughput.run(scale: $0) },
      Scenario(name: "events_overhead") { try await EventsOverhead.run(scale: $0) },
      Scenario(name: "await_overhead") { try await AwaitOverhead.run(scale: $0) },
      Scenario(name: "run_overhead") { try await RunOverhead.run(scale: $0) },
      Scenario(name: "await_concurrent") { try await AwaitConcurrent.run(scale: $0) },
      Scenario(name: "coalesce_fanin") { try await CoalesceFanIn.run(scale: $0) },
      Scenario(name: "enqueue_depth") { try await EnqueueDepth.run(scale: $0) },
      Scenario(name: "cancel_latency") { try await CancelLatency.run(scale: $0) },
      Scenario(name: "cancel_coalesced") { try await CancelCoalesced.run(scale: $0) },
      Scenario(name: "network_fanout") {
        try await NetworkFanOut.run(scale: $0, baseURL: fixtureBaseURL)
      },
      Scenario(name: "large_body") { try await LargeBody.run(scale: $0) },
      Scenario(name: "memory_per_waiter") { try await MemoryPerWaiter.run(scale: $0) },
    ]
    // `BENCH_ONLY=name,name` runs only those scenarios: for investigating one figure.
    let only = ProcessInfo.processInfo.environment["BENCH_ONLY"].map {
      Set($0.split(separator: ",").map(String.init))
    }
    let scenarios = allScenarios.filter { only?.contains($0.name) ?? true }
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
    return exitStatus(for: results, failOnMiss: failOnMiss)
  }

  /// The suite's exit status: 1 when a scenario could not run or, with `failOnMiss`, missed
  /// its target; otherwise 0.
  static func exitStatus(for results: [ScenarioResult], failOnMiss: Bool) -> Int32 {
    let failed = results.contains { $0.error != nil || (failOnMiss && !$0.met) }
    return failed ? 1 : 0
  }

  /// Writes one line of progress to standard error (standard output carries only the report).
  ///
  /// Uses `write(2)` and ignores its errors: progress is optional, and a closed or full
  /// standard error must not stop the suite (`FileHandle.standardError.write` traps there).
  ///
  /// - Parameters:
  ///   - message: The line, without its newline.
  ///   - descriptor: Where it goes: standard error unless a test says otherwise.
  static func log(_ message: String, to descriptor: Int32 = STDERR_FILENO) {
    let bytes = Array((message + "\n").utf8)
    bytes.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      var offset = 0
      while offset < buffer.count {
        let written = write(descriptor, base + offset, buffer.count - offset)
        guard written > 0 else { return }
        offset += written
      }
    }
  }
}

extension Benchmark {
  /// How big and how often: full scale, or about a tenth of it with `--quick`.
  struct Scale: Sendable {
    /// Whether the suite runs at about a tenth of its scale.
    let quick: Bool

    /// Measured rounds per scenario (after one warm-up round): 11 at full scale, 5 in quick
    /// mode. One round's paired ratio spreads widely on a shared machine (docs/PERFORMANCE.md);
    /// the median of 11 moves far less from run to run than that of 5.
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
