extension Benchmark {
  /// Timing, interleaved rounds and order statistics.
  enum Statistics {
    /// The per-round measurements of a scenario and its baseline, in nanoseconds per operation.
    struct Samples {
      /// Our side, one value per measured round.
      var ours: [Double] = []
      /// The baseline, one value per measured round.
      var baseline: [Double] = []

      /// The median of ``ours``.
      var oursMedian: Double { median(ours) }
      /// The median of ``baseline``.
      var baselineMedian: Double { median(baseline) }
      /// The median of the per-round ratios (ours ÷ baseline): below 1 means we are faster.
      ///
      /// Each round's two runs are back to back, under the same machine conditions; on a
      /// shared machine whose speed drifts between rounds, pairing them is steadier than
      /// dividing the two sides' medians.
      var ratio: Double { median(zip(ours, baseline).map { $0 / $1 }) }
    }

    /// Runs `ours` and `baseline` alternately: one warm-up pair that is not recorded, then
    /// `rounds` recorded pairs, which side goes first alternating from round to round. Each
    /// closure returns nanoseconds per operation for one run.
    static func interleave(
      _ name: String,
      rounds: Int,
      ours: () async throws -> Double,
      baseline: () async throws -> Double
    ) async throws -> Samples {
      var samples = Samples()
      for round in 0...rounds {
        let oursValue: Double
        let baselineValue: Double
        if round.isMultiple(of: 2) {
          oursValue = try await ours()
          baselineValue = try await baseline()
        } else {
          baselineValue = try await baseline()
          oursValue = try await ours()
        }
        let label = round == 0 ? "warm-up" : "round \(round)/\(rounds)"
        log(
          "  \(name) \(label): ours \(Report.duration(oursValue))/op, "
            + "baseline \(Report.duration(baselineValue))/op")
        if round > 0 {
          samples.ours.append(oursValue)
          samples.baseline.append(baselineValue)
        }
      }
      return samples
    }

    /// The wall time `body` takes, in nanoseconds.
    static func nanoseconds(_ body: () async throws -> Void) async rethrows -> Double {
      let start = ContinuousClock.now
      try await body()
      return nanoseconds(of: ContinuousClock.now - start)
    }

    /// `duration` in nanoseconds, as a floating-point number.
    static func nanoseconds(of duration: Duration) -> Double {
      let parts = duration.components
      return Double(parts.seconds) * 1e9 + Double(parts.attoseconds) * 1e-9
    }

    /// The median (mean of the two middle values for an even count); NaN when empty.
    static func median(_ values: [Double]) -> Double {
      guard !values.isEmpty else { return .nan }
      let sorted = values.sorted()
      let middle = sorted.count / 2
      return sorted.count.isMultiple(of: 2)
        ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// The `fraction` percentile (0…1) by the nearest-rank method; NaN when empty.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
      guard !values.isEmpty else { return .nan }
      let sorted = values.sorted()
      let rank = Int((fraction * Double(sorted.count)).rounded(.up))
      return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }
  }
}
