import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `coalesce_fanin`: 10,000 concurrent tasks await the same key, whose work (an async
  /// closure sleeping 20 ms) must run once. Ours: `manager.run(key:_:)`. Baseline: what a user
  /// writes instead, an actor that keeps a dictionary of in-flight `Task` handles.
  ///
  /// The tasks are created first and wait at a gate (untimed); the clock runs from opening the
  /// gate until the last task has its value. One operation = one awaiting task (wall time ÷
  /// 10,000). `executions` counts how often the work ran in the worst measured round (must be 1).
  enum CoalesceFanIn {
    /// The target: no slower than the hand-written actor.
    static let targetRatio = 1.0
    /// How long the shared work takes.
    static let workDuration = Duration.milliseconds(20)

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let tasks = scale.count(10_000)
      var oursRuns: [Int] = []
      var baselineRuns: [Int] = []
      var oursWall: [Double] = []
      var baselineWall: [Double] = []
      let samples = try await Statistics.interleave(
        "coalesce_fanin", rounds: scale.rounds,
        ours: {
          let (wall, executions) = try await ours(tasks: tasks)
          if executions != 1 { log("  coalesce_fanin: the work ran \(executions) times (ours)") }
          oursRuns.append(executions)
          oursWall.append(wall)
          return wall / Double(tasks)
        },
        baseline: {
          let (wall, executions) = try await baseline(tasks: tasks)
          if executions != 1 {
            log("  coalesce_fanin: the work ran \(executions) times (baseline)")
          }
          baselineRuns.append(executions)
          baselineWall.append(wall)
          return wall / Double(tasks)
        })
      // The first run of each side is the warm-up.
      let oursExecutions = oursRuns.dropFirst().max() ?? 0
      let baselineExecutions = baselineRuns.dropFirst().max() ?? 0
      let wallMs = Statistics.median(Array(oursWall.dropFirst())) / 1e6
      let baselineWallMs = Statistics.median(Array(baselineWall.dropFirst())) / 1e6
      return ScenarioResult(
        name: "coalesce_fanin",
        nsPerOp: samples.oursMedian,
        baseline: "actor de-duplicating in-flight work in a [key: Task] dictionary",
        baselineNsPerOp: samples.baselineMedian,
        ratio: samples.ratio,
        target: "ratio <= \(targetRatio), executions == 1",
        met: samples.ratio <= targetRatio && oursExecutions == 1,
        extras: [
          ("tasks", .integer(tasks)),
          ("executions", .integer(oursExecutions)),
          ("wall_ms", .number(wallMs)),
          ("baseline_executions", .integer(baselineExecutions)),
          ("baseline_wall_ms", .number(baselineWallMs)),
        ],
        details: String(
          format: "%d tasks; executions %d (baseline %d); wall %.1f ms (baseline %.1f ms)",
          tasks, oursExecutions, baselineExecutions, wallMs, baselineWallMs))
    }

    /// Our side (`work` is how long the shared work takes). Returns the wall time in
    /// nanoseconds and how often the work ran.
    static func ours(
      tasks: Int, work: Duration = workDuration
    ) async throws -> (wall: Double, executions: Int) {
      let manager = OperationQueueManager(name: "bench.coalesce_fanin.ours")
      let executions = Counter()
      let wall = try await fanIn(tasks: tasks) {
        try await manager.run(key: "fan-in") {
          executions.increment()
          try await Task.sleep(for: work)
          return 42
        }
      }
      try await manager.waitUntilIdle()
      return (wall, executions.value)
    }

    /// The baseline (`work` is how long the shared work takes). Returns the wall time in
    /// nanoseconds and how often the work ran.
    static func baseline(
      tasks: Int, work: Duration = workDuration
    ) async throws -> (wall: Double, executions: Int) {
      let inFlight = InFlightRequests()
      let executions = Counter()
      let wall = try await fanIn(tasks: tasks) {
        try await inFlight.value(for: "fan-in") {
          executions.increment()
          try await Task.sleep(for: work)
          return 42
        }
      }
      return (wall, executions.value)
    }

    /// Starts `tasks` tasks that wait at a gate, opens it and times until every task has
    /// called `request` and checked its value.
    private static func fanIn(
      tasks: Int, request: @escaping @Sendable () async throws -> Int
    ) async throws -> Double {
      let gate = StartGate()
      return try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
          group.addTask {
            await gate.wait()
            guard try await request() == 42 else {
              throw BenchmarkError.failed("coalesce_fanin: wrong value")
            }
          }
        }
        guard await poll(until: { gate.waitingCount == tasks }) else {
          throw BenchmarkError.timedOut("waiting for \(tasks) tasks at the gate")
        }
        return try await Statistics.nanoseconds {
          gate.open()
          try await group.waitForAll()
        }
      }
    }
  }

  /// The baseline's in-flight de-duplication, as commonly written: an actor with a dictionary
  /// of `Task` handles. The first caller for a key starts the task; later callers await its
  /// value; the entry goes when the task is done.
  actor InFlightRequests {
    private var tasks: [String: Task<Int, any Error>] = [:]

    /// Returns the value of the in-flight work for `key`, starting `work` if there is none.
    func value(
      for key: String, _ work: @escaping @Sendable () async throws -> Int
    ) async throws -> Int {
      if let task = tasks[key] { return try await task.value }
      let task = Task { try await work() }
      tasks[key] = task
      defer { tasks[key] = nil }
      return try await task.value
    }
  }
}
