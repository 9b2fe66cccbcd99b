import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// `memory_per_waiter`: 100,000 independent tasks held at once (not in batches), all
  /// awaiting one piece of work that waits at a closed gate, and the heap they hold divided by
  /// their number. Four sides: `manager.run(key:_:)`, `manager.perform(_:)` of a keyed
  /// `AsyncOperation`, an actor singleflight (the target's reference), and tasks awaiting a
  /// bare checked continuation (the floor).
  ///
  /// The heap is glibc's count of bytes in use (`mallinfo2`), read before the tasks are
  /// created and once every task is suspended; where it is unavailable, the resident set size
  /// after `malloc_trim` (also reported as `rss_*` beside it). Suspension is confirmed before
  /// measuring: for the manager, by the waiter count of its `joined` events (the subscriber is
  /// gone before the measurement); for the continuation, by the gate's count; then, for every
  /// side, by the heap no longer changing. One warm-up round at a tenth of the scale, then
  /// three measured rounds (one with `--quick`); the figures are medians.
  enum MemoryPerWaiter {
    /// The target: at most 1.2 times the actor singleflight, on both paths.
    static let targetRatio = 1.2
    /// The sides, in the order of the report.
    static let sides: [Caller] = [.run, .perform, .actor, .continuation]

    /// What one round of one side measured, in bytes per waiter.
    struct Footprint {
      /// From the heap in use; nil where `mallinfo2` is unavailable.
      var heap: Double?
      /// From the resident set size after `malloc_trim`; nil where `/proc` is unavailable.
      var resident: Double?
    }

    /// Measures the scenario.
    static func run(scale: Scale) async throws -> ScenarioResult {
      let waiters = scale.count(100_000)
      let rounds = scale.quick ? 1 : 3
      var heap = Array(repeating: [Double](), count: sides.count)
      var resident = Array(repeating: [Double](), count: sides.count)
      for round in 0...rounds {
        let count = round == 0 ? Swift.max(1, waiters / 10) : waiters
        var figures: [String] = []
        for step in sides.indices {
          let side = (round + step) % sides.count
          let footprint = try await measure(sides[side], waiters: count)
          figures.append(
            "\(sides[side].rawValue) \(bytes(footprint.heap)) (RSS \(bytes(footprint.resident)))")
          guard round > 0 else { continue }
          if let value = footprint.heap { heap[side].append(value) }
          if let value = footprint.resident { resident[side].append(value) }
        }
        let label = round == 0 ? "warm-up" : "round \(round)/\(rounds)"
        log("  memory_per_waiter \(label), \(count) waiters: " + figures.joined(separator: ", "))
      }
      let usesHeap = heap.allSatisfy { !$0.isEmpty }
      let perWaiter = (usesHeap ? heap : resident).map(Statistics.median)
      let runRatio = perWaiter[0] / perWaiter[2]
      let performRatio = perWaiter[1] / perWaiter[2]
      var extras: [(key: String, value: JSONValue)] = [
        ("waiters", .integer(waiters)),
        ("method", .string(usesHeap ? "mallinfo2" : "rss")),
        ("perform_ratio", .number(performRatio)),
      ]
      for side in sides.indices {
        extras.append(("\(sides[side].rawValue)_bytes", .number(perWaiter[side])))
        extras.append(
          ("rss_\(sides[side].rawValue)_bytes", .number(Statistics.median(resident[side]))))
      }
      return ScenarioResult(
        name: "memory_per_waiter",
        nsPerOp: .nan,
        baseline: "actor singleflight awaiting the same pending work",
        ratio: runRatio,
        target: "run, perform <= \(targetRatio)x actor",
        met: runRatio <= targetRatio && performRatio <= targetRatio,
        extras: extras,
        details: "\(waiters) waiters at once, bytes each (\(usesHeap ? "heap" : "RSS")): "
          + sides.indices.map { "\(sides[$0].rawValue) \(bytes(perWaiter[$0]))" }
          .joined(separator: ", ")
          + "; perform/actor \(Report.ratio(performRatio))")
    }

    /// `value` as whole bytes, such as `1461 B`; `-` when absent.
    private static func bytes(_ value: Double?) -> String {
      guard let value, value.isFinite else { return "-" }
      return String(format: "%.0f B", value)
    }

    /// One round of one side: holds `waiters` tasks awaiting one pending piece of work and
    /// returns what each costs.
    static func measure(_ caller: Caller, waiters: Int) async throws -> Footprint {
      let gate = StartGate()
      let manager = OperationQueueManager(name: "bench.memory_per_waiter.\(caller.rawValue)")
      let request = caller.request(key: "memory", manager: manager) {
        await gate.wait()
        return 42
      }
      let joined = Counter()
      let events = manager.makeEvents()
      let subscriber = Task {
        for await event in events where event.kind == .joined {
          joined.raise(to: event.callerCount)
        }
      }
      let arrived = Counter()
      var handles: [Task<Bool, Never>] = []
      handles.reserveCapacity(waiters)

      let heapBefore = ProcessMemory.heapInUseBytes
      let residentBefore = ProcessMemory.liveResidentMiB
      for _ in 0..<waiters {
        handles.append(
          Task {
            arrived.increment()
            return (try? await request()) == 42
          })
      }
      let suspended = await poll(timeout: .seconds(60)) {
        switch caller {
        case .run, .perform: joined.value >= waiters
        case .continuation: gate.waitingCount == waiters
        case .actor, .mutex, .leaving: arrived.value == waiters
        }
      }
      subscriber.cancel()
      await subscriber.value
      let settled = suspended ? await settle() : false
      let heapAfter = ProcessMemory.heapInUseBytes
      let residentAfter = ProcessMemory.liveResidentMiB

      gate.open()
      var failures = 0
      for handle in handles where !(await handle.value) { failures += 1 }
      try await manager.waitUntilIdle()
      guard suspended, settled else {
        throw BenchmarkError.timedOut("waiting for \(waiters) waiters to suspend")
      }
      guard failures == 0 else {
        throw BenchmarkError.failed("memory_per_waiter: \(failures) waiters got no value")
      }
      var footprint = Footprint()
      if let heapBefore, let heapAfter {
        footprint.heap = Double(heapAfter - heapBefore) / Double(waiters)
      }
      if let residentBefore, let residentAfter {
        footprint.resident = (residentAfter - residentBefore) * 1_048_576 / Double(waiters)
      }
      return footprint
    }

    /// Waits until the heap in use (or the resident set size) stops changing: every task has
    /// suspended. Returns whether it did within ten seconds.
    private static func settle() async -> Bool {
      var previous = -1.0
      return await poll(every: .milliseconds(20), timeout: .seconds(10)) {
        let current =
          ProcessMemory.heapInUseBytes.map(Double.init)
          ?? (ProcessMemory.liveResidentMiB ?? 0) * 1_048_576
        defer { previous = current }
        return abs(current - previous) < 4_096
      }
    }
  }
}
