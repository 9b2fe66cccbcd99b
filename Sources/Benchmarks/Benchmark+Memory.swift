import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `memory`: 1,000,000 no-op operations through `manager.perform(_:)`, awaited in batches of
  /// 1,000 concurrent tasks. Reports the peak resident set size (`VmHWM`) and the growth of
  /// the resident set size (`VmRSS`) between the end of the first 100,000 operations and the
  /// end of the last 100,000: a leak of even a few bytes per operation shows there. The growth
  /// over the second half (`growth_second_half_mib`) tells a leak (steady growth) from the
  /// allocator settling in (growth that stops early). The growth samples are taken after
  /// `malloc_trim`, so heap the allocator holds free does not count as growth (one-off steps
  /// that never grow further; docs/PERFORMANCE.md). Leaked memory stays live, and resident.
  ///
  /// `VmHWM` is process-wide. The scenario runs first, before any other scenario has grown the
  /// heap; it also hands freed heap back to the system (`malloc_trim`, `heap_trimmed`) and
  /// resets the peak through `/proc/self/clear_refs` (`peak_reset`), for runs that choose
  /// their scenarios with `BENCH_ONLY`. If the kernel refuses the reset, the peak includes what
  /// ran before (`peak_before_mib` is the peak before the reset either way). The peak also
  /// includes the runtime and Foundation (`start_rss_mib`; `start_heap_in_use_mib` is the part
  /// of it in live heap allocations), not only this scenario's operations.
  enum Memory {
    /// The peak resident set size allowed, in MiB.
    static let targetPeakMiB = 64.0
    /// The resident set growth allowed between the first and last 100,000 operations, in MiB.
    static let targetGrowthMiB = 2.0
    /// How many operations are awaited together.
    static let batchSize = 1_000

    /// Measures the scenario (one round: it is about memory, not time).
    static func run(scale: Scale) async throws -> ScenarioResult {
      let total = scale.count(1_000_000)
      let window = total / 10
      let peakBefore = ProcessMemory.peakMiB
      let trimmed = ProcessMemory.returnFreeMemory()
      let peakReset = ProcessMemory.resetPeak()
      let startRSS = ProcessMemory.residentMiB
      let startHeap = ProcessMemory.heapInUseBytes.map { Double($0) / 1_048_576 }
      let manager = OperationQueueManager(name: "bench.memory")

      var afterFirstWindow: Double?
      var atHalf: Double?
      var done = 0
      let wall = try await Statistics.nanoseconds {
        while done < total {
          let batch = min(batchSize, total - done)
          try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<batch {
              group.addTask { _ = try await manager.perform(NoOpOperation()) }
            }
            try await group.waitForAll()
          }
          done += batch
          if afterFirstWindow == nil, done >= window {
            afterFirstWindow = ProcessMemory.liveResidentMiB
          }
          if atHalf == nil, done >= total / 2 {
            atHalf = ProcessMemory.liveResidentMiB
          }
          if done % (total / 10) == 0 {
            log(
              "  memory: \(done) operations, RSS "
                + String(format: "%.1f MiB", ProcessMemory.residentMiB ?? .nan))
          }
        }
      }
      try await manager.waitUntilIdle()
      let endRSS = ProcessMemory.liveResidentMiB
      let peak = ProcessMemory.peakMiB
      var growth: Double?
      if let endRSS, let afterFirstWindow { growth = endRSS - afterFirstWindow }
      var secondHalfGrowth: Double?
      if let endRSS, let atHalf { secondHalfGrowth = endRSS - atHalf }
      let met =
        (peak.map { $0 <= targetPeakMiB } ?? false)
        && (growth.map { $0 <= targetGrowthMiB } ?? false)
      return ScenarioResult(
        name: "memory",
        nsPerOp: wall / Double(total),
        baseline: "none",
        target: "peak_rss_mib <= \(Int(targetPeakMiB)), growth_mib <= \(targetGrowthMiB)",
        met: met,
        extras: [
          ("operations", .integer(total)),
          ("batch", .integer(batchSize)),
          ("peak_rss_mib", .number(peak)),
          ("growth_mib", .number(growth)),
          ("growth_second_half_mib", .number(secondHalfGrowth)),
          ("start_rss_mib", .number(startRSS)),
          ("start_heap_in_use_mib", .number(startHeap)),
          ("end_rss_mib", .number(endRSS)),
          ("heap_trimmed", .bool(trimmed)),
          ("peak_reset", .bool(peakReset)),
          ("peak_before_mib", .number(peakBefore)),
        ],
        details: String(format: "%d ops; peak %.1f MiB", total, peak ?? .nan)
          + (peakReset ? "" : " (process-wide)")
          + String(
            format: ", growth %.2f MiB (second half %.2f)", growth ?? .nan,
            secondHalfGrowth ?? .nan))
    }
  }
}
