import Foundation

/// How much the reliability stress runs, from the environment:
///
/// - `RELIABILITY_SEED`: the seed (decimal or `0x…`); random when unset, printed either way.
/// - `RELIABILITY_ROUND`: run only this round of the seed (a failure message names it).
/// - `RELIABILITY_REPEAT`: with `RELIABILITY_ROUND`, run that round this many times (the
///   scripts replay exactly; thread timing does not, so a rare race may need repeats).
/// - `RELIABILITY_ROUNDS`: the most rounds to run (default 2,000).
/// - `RELIABILITY_BUDGET`: seconds after which no new round starts, once the minimum of 25
///   rounds has run (default 10; ThreadSanitizer runs slower, so fewer rounds fit).
public struct StressSettings {
  /// The seed every round derives its script from.
  public var seed: UInt64
  /// The round numbers to run, in order, as long as the budget allows.
  public var rounds: [Int]
  /// How many rounds run whatever the budget.
  public var minimumRounds: Int
  /// The time after which no new round starts, once the minimum has run.
  public var budget: Duration
  /// How long one round may take before it counts as a hang.
  public var hangGuard: Duration

  /// The settings the environment asks for (see above), with their defaults.
  public static func fromEnvironment() -> StressSettings {
    let environment = ProcessInfo.processInfo.environment
    let seed = seed()
    let budget = environment["RELIABILITY_BUDGET"].flatMap(Double.init) ?? 10
    if let round = environment["RELIABILITY_ROUND"].flatMap(Int.init) {
      let repeats = environment["RELIABILITY_REPEAT"].flatMap(Int.init) ?? 1
      return StressSettings(
        seed: seed, rounds: Array(repeating: round, count: max(1, repeats)),
        minimumRounds: max(1, repeats), budget: StressBudget.scaled(.seconds(budget)),
        hangGuard: .seconds(20))
    }
    let count = environment["RELIABILITY_ROUNDS"].flatMap(Int.init) ?? 2_000
    return StressSettings(
      seed: seed, rounds: Array(0..<max(1, count)), minimumRounds: min(25, max(1, count)),
      budget: StressBudget.scaled(.seconds(budget)), hangGuard: .seconds(20))
  }

  /// The seed of a run: from `alias` (an older variable that still works) or
  /// `RELIABILITY_SEED`, random when neither is set.
  public static func seed(alias: String? = nil) -> UInt64 {
    let environment = ProcessInfo.processInfo.environment
    let text = alias.flatMap { environment[$0] } ?? environment["RELIABILITY_SEED"]
    return text.flatMap(parseSeed) ?? .random(in: 1...UInt64.max)
  }

  private static func parseSeed(_ text: String) -> UInt64? {
    if text.hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
    return UInt64(text)
  }
}
