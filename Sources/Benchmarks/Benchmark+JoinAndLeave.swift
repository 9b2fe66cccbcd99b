import AsyncBridge
import Foundation
import OperationCore

extension Benchmark {
  /// The counted paths of callers joining and leaving shared work (``CountedPath``). Each
  /// caller is a task of its own, as in an app; the paths wait for the callers to register by
  /// polling the manager's caller count (10 ms apart, so the polls add next to nothing per
  /// caller) and never by sleeping a fixed time.
  enum JoinAndLeave {
    /// How often the paths check that every caller has registered.
    static let pollInterval = Duration.milliseconds(10)

    /// `count` tasks join one `run(key:)` whose closure waits at a gate, then the gate opens
    /// and every caller gets the value: one join, one resumption per caller.
    static func joinRunKey(count: Int) async throws {
      try await joinInFlight(count: count, name: "join_run_key") { manager, gate in
        try await manager.run(key: "shared") {
          await gate.wait()
          return 1
        }
      }
    }

    /// As ``joinRunKey(count:)``, with `perform` of a keyed `AsyncOperation`: each joiner
    /// builds one and drops it.
    static func joinPerform(count: Int) async throws {
      try await joinInFlight(count: count, name: "join_perform") { manager, gate in
        try await manager.perform(
          AsyncOperation(coalescingKey: "shared") {
            await gate.wait()
            return 1
          })
      }
    }

    /// `count` tasks join pending work on a suspended queue that a completion handler keeps,
    /// then each is cancelled in turn and leaves: one join and one leave per caller, the work
    /// never cancelled.
    static func leavePending(count: Int) async throws {
      let manager = OperationQueueManager(name: "bench.leave_pending")
      manager.isSuspended = true
      manager.enqueue(KeyedNoOp(key: 0)) { _ in }
      let key = CoalescingKey(for: KeyedNoOp.self, base: 0)
      let callers = (0..<count).map { _ in
        Task { try await manager.perform(KeyedNoOp(key: 0)) }
      }
      try await waitForCallers(count + 1, forKey: key, on: manager)
      for caller in callers {
        caller.cancel()
        _ = await caller.result
      }
      manager.isSuspended = false
      try await manager.waitUntilIdle()
    }

    /// `count` tasks each await work of their own, pending on a suspended queue, then each is
    /// cancelled in turn: as the last caller it leaves, and its work is cancelled (and released
    /// when the queue resumes).
    static func leaveLast(count: Int) async throws {
      let manager = OperationQueueManager(name: "bench.leave_last")
      manager.isSuspended = true
      let callers = (0..<count).map { index in
        Task { try await manager.perform(KeyedNoOp(key: index)) }
      }
      guard
        await poll(
          every: pollInterval, timeout: .seconds(600),
          until: {
            manager.outstandingOperationCount == count
          })
      else { throw BenchmarkError.timedOut("waiting for \(count) callers to register") }
      // Each caller registered with its claim: cancelled now, it leaves as a registered caller
      // (one still installing its cancellation handler runs it at once).
      for caller in callers {
        caller.cancel()
        _ = await caller.result
      }
      manager.isSuspended = false
      try await manager.waitUntilIdle()
    }

    /// Starts one caller whose work waits at a gate, then `count` more that join it; opens the
    /// gate once all have registered, and waits for every value.
    private static func joinInFlight(
      count: Int, name: String,
      call: @escaping @Sendable (OperationQueueManager, StartGate) async throws -> Int
    ) async throws {
      let manager = OperationQueueManager(name: "bench.\(name)")
      let gate = StartGate()
      let done = Countdown(count + 1)
      let key = CoalescingKey(for: AsyncOperation<Int>.self, base: "shared")
      let caller: @Sendable () -> Void = {
        Task {
          _ = try? await call(manager, gate)
          done.arrive()
        }
      }
      caller()
      guard
        await poll(
          every: pollInterval, timeout: .seconds(600),
          until: {
            gate.waitingCount == 1
          })
      else { throw BenchmarkError.timedOut("waiting for the work to start") }
      for _ in 0..<count { caller() }
      try await waitForCallers(count + 1, forKey: key, on: manager)
      await done.wait { gate.open() }
      try await manager.waitUntilIdle()
    }

    /// Waits until `count` callers wait for the work under `key`.
    private static func waitForCallers(
      _ count: Int, forKey key: CoalescingKey, on manager: OperationQueueManager
    ) async throws {
      guard
        await poll(
          every: pollInterval, timeout: .seconds(600),
          until: {
            manager.callerCount(forKey: key) >= count
          })
      else { throw BenchmarkError.timedOut("waiting for \(count) callers of \(key)") }
    }
  }
}
