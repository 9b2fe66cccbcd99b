import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `coalesce_fanin`: 10,000 independent tasks (each its own unstructured `Task`, not
  /// children of one group) are released at once by a gate and ask for the same key, whose
  /// work (sleeping 20 ms) must run once. Five sides, in rotating order each round:
  /// `manager.run(key:_:)`, `manager.perform(_:)` of a keyed `AsyncOperation`, and the
  /// singleflights a user writes instead: an actor and a `Mutex` each keeping a
  /// `[key: Task]` dictionary of in-flight work, and, for context, a `Mutex` singleflight
  /// whose callers can each leave on cancellation as ours can (``LeavingSingleflight``).
  ///
  /// The clock runs from opening the gate until the last task has its value (each task
  /// counts itself down; nobody awaits `Task.value` of the callers). One operation = one
  /// caller (wall time ÷ 10,000). The ratios compare with the `Mutex` singleflight, the
  /// faster alternative; the target holds against it. Every side's executions are reported
  /// for every round.
  enum CoalesceFanIn {
    /// The target: no slower than the `Mutex` singleflight, on both paths.
    static let targetRatio = 1.0
    /// How long the shared work takes.
    static let workDuration = Duration.milliseconds(20)
    /// The sides, in the order of the report.
    static let sides: [Caller] = [.run, .perform, .actor, .mutex, .leaving]

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let tasks = scale.count(10_000)
      var executions = Array(repeating: [Int](), count: sides.count)
      var walls = Array(repeating: [Double](), count: sides.count)
      var mostAtOnce = Array(repeating: 0, count: sides.count)
      let timings = try await Statistics.rotate(
        "coalesce_fanin", rounds: scale.rounds,
        sides: sides.indices.map { side in
          (
            sides[side].rawValue,
            {
              let (wall, ran, atOnce) = try await measure(sides[side], tasks: tasks)
              if ran != 1 {
                // Two at once would be a coalescing failure; one after the other, late callers.
                log(
                  "  coalesce_fanin: the work ran \(ran) times (\(sides[side].rawValue)), "
                    + "at most \(atOnce) at once")
              }
              mostAtOnce[side] = max(mostAtOnce[side], atOnce)
              executions[side].append(ran)
              walls[side].append(wall)
              return wall / Double(tasks)
            }
          )
        })
      // Drop the warm-up round.
      let ran = executions.map { Array($0.dropFirst()) }
      let mutex = timings[3]
      let runRatio = Statistics.pairedRatio(timings[0], mutex)
      let performRatio = Statistics.pairedRatio(timings[1], mutex)
      let actorRatio = Statistics.pairedRatio(timings[2], mutex)
      let leavingRatio = Statistics.pairedRatio(timings[4], mutex)
      // Ours must run the work once in every round where both alternatives did.
      let onceWhereAlternativesWere = ran[0].indices.allSatisfy { round in
        ran[2][round] != 1 || ran[3][round] != 1 || (ran[0][round] == 1 && ran[1][round] == 1)
      }
      let wallMs = walls.map { Statistics.median(Array($0.dropFirst())) / 1e6 }
      var extras: [(key: String, value: JSONValue)] = [
        ("tasks", .integer(tasks)),
        ("perform_ratio", .number(performRatio)),
        ("actor_ratio", .number(actorRatio)),
        ("leaving_ratio", .number(leavingRatio)),
      ]
      for side in sides.indices {
        extras.append(
          ("\(sides[side].rawValue)_ns_per_op", .number(Statistics.median(timings[side]))))
        extras.append(("\(sides[side].rawValue)_wall_ms", .number(wallMs[side])))
        extras.append(("\(sides[side].rawValue)_executions_max", .integer(ran[side].max() ?? 0)))
        extras.append(
          ("\(sides[side].rawValue)_executions_at_once_max", .integer(mostAtOnce[side])))
        extras.append(
          ("\(sides[side].rawValue)_executions", .array(ran[side].map(JSONValue.integer))))
      }
      let histograms = sides.indices.map { "\(sides[$0].rawValue) \(histogram(ran[$0]))" }
      return ScenarioResult(
        name: "coalesce_fanin",
        nsPerOp: Statistics.median(timings[0]),
        baseline: "Mutex singleflight: [key: Task] dictionary under a Mutex (also an actor)",
        baselineNsPerOp: Statistics.median(mutex),
        ratio: runRatio,
        target: "run, perform <= \(targetRatio); executions 1",
        met: runRatio <= targetRatio && performRatio <= targetRatio && onceWhereAlternativesWere,
        extras: extras,
        details: "\(tasks) independent tasks; vs mutex: run \(Report.ratio(runRatio)), "
          + "perform \(Report.ratio(performRatio)), actor \(Report.ratio(actorRatio)), "
          + "leaving \(Report.ratio(leavingRatio)); "
          + String(
            format: "wall ms: run %.1f, perform %.1f, actor %.1f, mutex %.1f, leaving %.1f; ",
            wallMs[0], wallMs[1], wallMs[2], wallMs[3], wallMs[4])
          + "executions per round (value x rounds): " + histograms.joined(separator: ", "))
    }

    /// `values` as `value x count` pairs, smallest value first, such as `1x9 2x2`.
    static func histogram(_ values: [Int]) -> String {
      Dictionary(grouping: values) { $0 }.sorted { $0.key < $1.key }
        .map { "\($0.key)x\($0.value.count)" }.joined(separator: " ")
    }

    /// One round of one side (`work` is how long the shared work takes). Returns the wall
    /// time in nanoseconds, how often the work ran, and the most executions running at once
    /// (more than one would mean coalescing failed; one with several executions means callers
    /// came after the work had ended, and started it again as they should).
    static func measure(
      _ caller: Caller, tasks: Int, work: Duration = workDuration
    ) async throws -> (wall: Double, executions: Int, atOnce: Int) {
      let executions = Counter()
      let running = Counter()
      let mostAtOnce = Counter()
      let manager = OperationQueueManager(name: "bench.coalesce_fanin.\(caller.rawValue)")
      let request = caller.request(key: "fan-in", manager: manager) {
        executions.increment()
        mostAtOnce.raise(to: running.increment())
        defer { running.decrement() }
        try await Task.sleep(for: work)
        return 42
      }
      let wall = try await fanIn(tasks: tasks, request: request)
      try await manager.waitUntilIdle()
      return (wall, executions.value, mostAtOnce.value)
    }

    /// Starts `tasks` independent tasks that wait at a gate, opens it and times until every
    /// task has called `request` and checked its value.
    private static func fanIn(
      tasks: Int, request: @escaping @Sendable () async throws -> Int
    ) async throws -> Double {
      let gate = StartGate()
      let done = Countdown(tasks)
      let wrong = Counter()
      for _ in 0..<tasks {
        Task {
          await gate.wait()
          if (try? await request()) != 42 { wrong.increment() }
          done.arrive()
        }
      }
      guard await poll(until: { gate.waitingCount == tasks }) else {
        throw BenchmarkError.timedOut("waiting for \(tasks) tasks at the gate")
      }
      let wall = await Statistics.nanoseconds {
        await done.wait { gate.open() }
      }
      guard wrong.value == 0 else {
        throw BenchmarkError.failed("coalesce_fanin: \(wrong.value) callers got no value")
      }
      return wall
    }
  }
}
