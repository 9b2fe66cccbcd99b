import Foundation
import Testing

/// Runs `round` for rounds 0, 1, … of one seed (`RELIABILITY_SEED` replays a run): at least
/// `minimumRounds`, then as long as `budget` (a third of it under ThreadSanitizer) allows, at
/// most `maximumRounds`. Stops at the first round that reports problems and records up to ten
/// of them with the seed and the round.
///
/// - Returns: The seed and how many rounds ran.
public func runStressRounds(
  budget: Duration, maximumRounds: Int, minimumRounds: Int = 1,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ round: (_ seed: UInt64, _ round: Int) async -> [String]
) async -> (seed: UInt64, rounds: Int) {
  let seed = StressSettings.seed()
  let stop = ContinuousClock.now + StressBudget.scaled(budget)
  var roundsRun = 0
  for number in 0..<maximumRounds
  where number < minimumRounds || ContinuousClock.now < stop {
    roundsRun += 1
    let problems = await round(seed, number)
    guard problems.isEmpty else {
      for problem in problems.prefix(10) {
        Issue.record("seed \(seed), round \(number): \(problem)", sourceLocation: sourceLocation)
      }
      break
    }
  }
  return (seed, roundsRun)
}
