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
      var ratio: Double { pairedRatio(ours, baseline) }
    }

    /// Runs `ours` and `baseline` alternately: one warm-up pair that is not recorded, then
    /// `rounds` recorded pairs, which side goes first alternating from round to round. Each
    /// closure returns nanoseconds per operation for one run.
    static func interleave(
      _ name: String,
      rounds: Int,
      ours: @escaping () async throws -> Double,
      baseline: @escaping () async throws -> Double
    ) async throws -> Samples {
      let sides = try await rotate(
        name, rounds: rounds, sides: [("ours", ours), ("baseline", baseline)])
      return Samples(ours: sides[0], baseline: sides[1])
    }

    /// Runs every side once per round: one warm-up round that is not recorded, then `rounds`
    /// recorded ones, the order of the sides rotating by one from round to round so none
    /// always runs first. Each closure returns nanoseconds per operation for one run.
    ///
    /// - Returns: For each side, in the order given, its value in every recorded round.
    static func rotate(
      _ name: String,
      rounds: Int,
      sides: [(name: String, run: () async throws -> Double)]
    ) async throws -> [[Double]] {
      var recorded = Array(repeating: [Double](), count: sides.count)
      for round in 0...rounds {
        var values = Array(repeating: Double.nan, count: sides.count)
        for step in sides.indices {
          let side = (round + step) % sides.count
          values[side] = try await sides[side].run()
        }
        let label = round == 0 ? "warm-up" : "round \(round)/\(rounds)"
        let figures = zip(sides, values).map { "\($0.name) \(Report.duration($1))/op" }
        log("  \(name) \(label): " + figures.joined(separator: ", "))
        if round > 0 {
          for side in sides.indices { recorded[side].append(values[side]) }
        }
      }
      return recorded
    }

    /// The median of the per-round ratios `numerator[i] / denominator[i]`.
    static func pairedRatio(_ numerator: [Double], _ denominator: [Double]) -> Double {
      median(zip(numerator, denominator).map { $0 / $1 })
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
