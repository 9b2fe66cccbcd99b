import AsyncBridge
import Dispatch
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Shared progress under races: reports racing joins, leaves, cancel-all, cancel and finish,
/// from awaiting tasks and completion handlers alike. For every caller: no progress call after
/// its call returned (or its handler was called), values only ever moving forward, and a late
/// joiner's first value no older than the value current when it joined. Seeded
/// (`RELIABILITY_SEED` replays a run) and bounded by rounds and by time.
@Suite(.serialized) struct ProgressStressTests {
  @Test(.timeLimit(.minutes(2)))
  func progressRacingJoinsLeavesCancelAllAndFinish() async throws {
    var delivered = 0
    // At least a few rounds, however loaded the machine, then as many as the time allows.
    let (seed, roundsRun) = await runStressRounds(
      budget: .seconds(6), maximumRounds: 2_000, minimumRounds: 10
    ) { seed, round in
      let (problems, values) = await Self.round(seed: seed, round: round)
      delivered += values
      return problems
    }
    print("progress races: seed \(seed), \(roundsRun) rounds, \(delivered) values delivered")
    // Caller 0 of every round is handed at least the value reported before it asked.
    #expect(delivered >= roundsRun)
  }

  /// What one caller saw.
  private final class CallerLog: Sendable {
    private struct State {
      var values: [Int64] = []
      var returned = false
      var problems: [String] = []
    }

    private let state = Locked(State())
    let name: String
    /// The progress current just before the caller asked: its first value is no older.
    let floor: Int64

    init(name: String, floor: Int64) {
      self.name = name
      self.floor = floor
    }

    func progress(_ progress: OperationProgress) {
      state.withLock { state in
        if state.returned { state.problems.append("\(name): progress after its outcome") }
        if let last = state.values.last, progress.completedUnitCount <= last {
          state.problems.append("\(name): \(progress.completedUnitCount) after \(last)")
        }
        if state.values.isEmpty, progress.completedUnitCount < floor {
          state.problems.append(
            "\(name): first value \(progress.completedUnitCount) older than \(floor)")
        }
        state.values.append(progress.completedUnitCount)
      }
    }

    func returned() { state.withLock { $0.returned = true } }

    var valueCount: Int { state.withLock { $0.values.count } }

    var problems: [String] {
      state.withLock { state in
        state.returned ? state.problems : state.problems + ["\(name): never returned"]
      }
    }
  }

  /// One round: its problems, and how many values its callers were handed.
  private static func round(seed: UInt64, round: Int) async -> ([String], Int) {
    var rng = SeededGenerator(seed: seed ^ (UInt64(round) &* 0x9E37_79B9_7F4A_7C15))
    let manager = OperationQueueManager(name: "progress.stress", maxConcurrentOperationCount: 2)
    let operation = ManualOperation(key: 1)
    let total: Int64 = 400
    let callbacks = DispatchQueue(label: "progress.stress.callbacks", attributes: .concurrent)
    var logs: [CallerLog] = []
    var requests: [ManualOperation] = []
    var tasks: [Task<Void, Never>] = []
    let handlersDone = Recorder<Int>()
    var handlers = 0

    // A value before anyone asks: caller 0, which registers (synchronously, with a completion
    // handler) before the work can end, is always handed at least this one.
    operation.reportProgress(completed: 1, total: total)
    // The reporter: forward steps, with steps backwards now and then (dropped).
    let reporter = Task.detached {
      var completed: Int64 = 1
      while completed < total, !Task.isCancelled {
        completed += 1
        operation.reportProgress(completed: completed, total: total)
        if completed.isMultiple(of: 17) {
          operation.reportProgress(completed: completed - 5, total: total)
        }
        if completed.isMultiple(of: 8) { await Task.yield() }
      }
    }

    let callers = 10
    let endAt = Int.random(in: 2...callers, using: &rng)
    let ending = Int.random(in: 0..<3, using: &rng)
    for index in 0..<callers {
      if index == endAt {
        switch ending {
        case 0: operation.release(index)
        case 1: manager.cancelAllOperations()
        default: operation.cancel()
        }
      }
      let floor = operation.currentProgress?.completedUnitCount ?? 0
      let request = index == 0 ? operation : ManualOperation(key: 1)
      requests.append(request)
      let log = CallerLog(name: "caller \(index)", floor: floor)
      logs.append(log)
      if index > 0, Bool.random(using: &rng) {
        let task = Task {
          _ = try? await manager.perform(request, onProgress: log.progress)
          log.returned()
        }
        tasks.append(task)
        if Int.random(in: 0..<4, using: &rng) == 0 {
          let leaving = task
          Task { leaving.cancel() }
        }
      } else {
        handlers += 1
        let queue: CallbackQueue? = Bool.random(using: &rng) ? .dispatch(callbacks) : nil
        manager.enqueue(
          request, callbackQueue: queue, onProgress: log.progress
        ) { _ in
          log.returned()
          handlersDone.record(index)
        }
      }
      if Bool.random(using: &rng) { await Task.yield() }
    }
    // Callers that came after the work settled started fresh work, maybe only now (a task may
    // not have run yet): cancelling every request ends that work too, whenever it comes.
    manager.cancelAllOperations()
    for request in requests { request.cancel() }
    var problems: [String] = []
    for task in tasks where await value(of: task, within: .testTimeout) == nil {
      problems.append("a task still waiting after cancel-all")
    }
    if !(await handlersDone.wait(forCount: handlers)) {
      problems.append("\(handlers - handlersDone.count) handlers never called")
    }
    reporter.cancel()
    _ = await reporter.value
    for log in logs { problems += log.problems }
    return (problems, logs.reduce(0) { $0 + $1.valueCount })
  }
}
