import Testing

@testable import Benchmarks

/// What `bench` exits with: scenarios that could not run always fail it; missed targets only
/// with `failOnMiss`.
@Suite struct ExitStatusTests {
  private static func result(met: Bool) -> Benchmark.ScenarioResult {
    Benchmark.ScenarioResult(
      name: "throughput", nsPerOp: 1, baseline: "none", target: "ratio <= 1.15", met: met)
  }

  @Test func everyTargetMetExitsZeroEitherWay() {
    let results = [Self.result(met: true), Self.result(met: true)]

    #expect(Benchmark.exitStatus(for: results, failOnMiss: false) == 0)
    #expect(Benchmark.exitStatus(for: results, failOnMiss: true) == 0)
  }

  @Test func aMissedTargetFailsOnlyWithFailOnMiss() {
    let results = [Self.result(met: true), Self.result(met: false)]

    #expect(Benchmark.exitStatus(for: results, failOnMiss: false) == 0)
    #expect(Benchmark.exitStatus(for: results, failOnMiss: true) == 1)
  }

  @Test func aScenarioThatCouldNotRunAlwaysFails() {
    let results = [Self.result(met: true), .failed("memory", error: CancellationError())]

    #expect(Benchmark.exitStatus(for: results, failOnMiss: false) == 1)
    #expect(Benchmark.exitStatus(for: results, failOnMiss: true) == 1)
  }
}
