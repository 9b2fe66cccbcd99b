import AsyncBridge
import Foundation
import LockedValue
import OperationCore

extension Benchmark {
  /// `coalesce_fanin`: 10,000 independent tasks (each its own unstructured `Task`, not
  /// children of one group) are let through at once by a gate and ask for the same key, whose
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
  /// for every round, and where its time went: how long after the gate opened the work
  /// started, and how long after it ended the last caller had its value (the callers all wait
  /// well before the work ends, so these two are what a side adds to the work's 20 ms).
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
      var workStarts = Array(repeating: [Double](), count: sides.count)
      var resumptions = Array(repeating: [Double](), count: sides.count)
      let timings = try await Statistics.rotate(
        "coalesce_fanin", rounds: scale.rounds,
        sides: sides.indices.map { side in
          (
            sides[side].rawValue,
            {
              let round = try await measure(sides[side], tasks: tasks)
              if round.executions != 1 {
                // Two at once would be a coalescing failure; one after the other, late callers.
                log(
                  "  coalesce_fanin: the work ran \(round.executions) times "
                    + "(\(sides[side].rawValue)), at most \(round.atOnce) at once")
              }
              mostAtOnce[side] = max(mostAtOnce[side], round.atOnce)
              executions[side].append(round.executions)
              walls[side].append(round.wall)
              workStarts[side].append(round.workStart)
              resumptions[side].append(round.resumption)
              return round.wall / Double(tasks)
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
      // Each side's median over the measured rounds (the warm-up dropped), in milliseconds.
      func medianMs(_ nanoseconds: [[Double]]) -> [Double] {
        nanoseconds.map { Statistics.median(Array($0.dropFirst())) / 1e6 }
      }
      let wallMs = medianMs(walls)
      let workStartMs = medianMs(workStarts)
      let resumptionMs = medianMs(resumptions)
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
        extras.append(("\(sides[side].rawValue)_work_start_ms", .number(workStartMs[side])))
        extras.append(("\(sides[side].rawValue)_resumption_ms", .number(resumptionMs[side])))
        extras.append(("\(sides[side].rawValue)_executions_max", .integer(ran[side].max() ?? 0)))
        extras.append(
          ("\(sides[side].rawValue)_executions_at_once_max", .integer(mostAtOnce[side])))
        extras.append(
          ("\(sides[side].rawValue)_executions", .array(ran[side].map(JSONValue.integer))))
      }
      let histograms = sides.indices.map { "\(sides[$0].rawValue) \(histogram(ran[$0]))" }
      let phases = sides.indices.map {
        String(
          format: "%@ %.2f / %.1f", sides[$0].rawValue, workStartMs[$0], resumptionMs[$0])
      }
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
          + "work started / last value after the work ended, ms: "
          + phases.joined(separator: ", ") + "; "
          + "executions per round (value x rounds): " + histograms.joined(separator: ", "))
    }

    /// `values` as `value x count` pairs, smallest value first, such as `1x9 2x2`.
    static func histogram(_ values: [Int]) -> String {
      Dictionary(grouping: values) { $0 }.sorted { $0.key < $1.key }
        .map { "\($0.key)x\($0.value.count)" }.joined(separator: " ")
    }

    /// What one round of one side measured.
    struct Round {
      /// Nanoseconds from opening the gate until the last caller had its value.
      let wall: Double
      /// How often the work ran.
      let executions: Int
      /// The most executions running at once (more than one would mean coalescing failed;
      /// one with several executions means callers came after the work had ended, and started
      /// it again as they should).
      let atOnce: Int
      /// Nanoseconds from opening the gate until the work first started.
      let workStart: Double
      /// Nanoseconds from the work's last end until the last caller had its value.
      let resumption: Double
    }

    /// One round of one side (`work` is how long the shared work takes).
    static func measure(
      _ caller: Caller, tasks: Int, work: Duration = workDuration
    ) async throws -> Round {
      let executions = Counter()
      let running = Counter()
      let mostAtOnce = Counter()
      let times = WorkTimes()
      let manager = OperationQueueManager(name: "bench.coalesce_fanin.\(caller.rawValue)")
      let request = caller.request(key: "fan-in", manager: manager) {
        times.started()
        executions.increment()
        mostAtOnce.raise(to: running.increment())
        defer {
          running.decrement()
          times.ended()
        }
        try await Task.sleep(for: work)
        return 42
      }
      let (opened, finished) = try await fanIn(tasks: tasks, request: request)
      try await manager.waitUntilIdle()
      let (firstStart, lastEnd) = times.extremes
      return Round(
        wall: Statistics.nanoseconds(of: finished - opened),
        executions: executions.value, atOnce: mostAtOnce.value,
        workStart: Statistics.nanoseconds(of: (firstStart ?? opened) - opened),
        resumption: Statistics.nanoseconds(of: finished - (lastEnd ?? finished)))
    }

    /// When the work first started and last ended, over one round.
    private final class WorkTimes: Sendable {
      private let times = Locked<(first: ContinuousClock.Instant?, last: ContinuousClock.Instant?)>(
        (nil, nil))

      /// Records a start (only the first counts).
      func started() {
        let now = ContinuousClock.now
        times.withLock { if $0.first == nil { $0.first = now } }
      }

      /// Records an end (the last counts).
      func ended() {
        let now = ContinuousClock.now
        times.withLock { $0.last = now }
      }

      /// The first start and the last end, nil before either.
      var extremes: (firstStart: ContinuousClock.Instant?, lastEnd: ContinuousClock.Instant?) {
        times.withLock { ($0.first, $0.last) }
      }
    }

    /// Starts `tasks` independent tasks that wait at a gate, opens it and waits until every
    /// task has called `request` and checked its value. Returns when the gate opened and when
    /// the last task was done.
    private static func fanIn(
      tasks: Int, request: @escaping @Sendable () async throws -> Int
    ) async throws -> (opened: ContinuousClock.Instant, finished: ContinuousClock.Instant) {
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
      let opened = ContinuousClock.now
      await done.wait { gate.open() }
      let finished = ContinuousClock.now
      guard wrong.value == 0 else {
        throw BenchmarkError.failed("coalesce_fanin: \(wrong.value) callers got no value")
      }
      return (opened, finished)
    }
  }
}
