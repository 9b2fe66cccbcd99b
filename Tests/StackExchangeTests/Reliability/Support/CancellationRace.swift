import AsyncBridge
import Dispatch
import Foundation
import LockedValue
import OperationCore
import OperationNetworking
import StackExchange
import TestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Runs requests against a failing connection and cancels each from another queue.
final class CancellationRace: Sendable {
  struct Tally: Sendable {
    var rounds = 0
    var deliveries: [Int: Int] = [:]
    var cancelled = 0
    var failed = 0
    var hangs = 0
    var other: [String] = []
    /// The window cancellation delays are drawn from, in microseconds: widened after each
    /// round cancellation won, narrowed after each the failure won, so both keep happening.
    var window: Double = 1
  }

  private let manager: OperationQueueManager
  private let baseURL: URL
  private let seed: UInt64
  private let cancelQueue = DispatchQueue(label: "fault.race.cancel", attributes: .concurrent)
  private let state = Locked(Tally())
  private let operations = Locked<[Operation]>([])
  /// A session of its own: the race keeps corelibs' session busy with thousands of data tasks
  /// created, resumed and cancelled at once, which would hold up other tests sharing one.
  private let session = URLSession.makeNetworkingSession(timeout: .seconds(60))

  init(manager: OperationQueueManager, baseURL: URL, seed: UInt64) {
    self.manager = manager
    self.baseURL = baseURL
    self.seed = seed
  }

  deinit {
    session.finishTasksAndInvalidate()
  }

  var tally: Tally { state.withLock { $0 } }

  private func makeOperation(round: Int) -> NetworkingOperation<QuestionsPage> {
    var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
    components.path = "/questions"
    components.query = "site=stackoverflow&page=\(round + 1)"
    return NetworkingOperation(
      request: URLRequest(url: components.url!), session: session, coalescing: .never)
  }

  /// The median time, in microseconds, a request takes to fail: the window cancellation is
  /// spread over, so that it lands on both sides of the failure.
  func measureFailureTime() async -> Int {
    var times: [Duration] = []
    for round in 0..<9 {
      let operation = makeOperation(round: -1 - round)
      // Kept alive like every round's operation: a freed one's identity could be reused by
      // a later operation that is never enqueued, and its `enqueued` event misattributed.
      operations.withLock { $0.append(operation) }
      let started = ContinuousClock.now
      _ = await withCheckedContinuation { continuation in
        manager.enqueue(operation) { continuation.resume(returning: $0) }
      }
      times.append(ContinuousClock.now - started)
    }
    return max(1, Int(times.sorted()[4] / .microseconds(1)))
  }

  /// Runs `rounds` rounds on `lanes` threads of their own (blocking dispatch's threads would
  /// starve the queues under test); returns the tally.
  func run(rounds: Int, lanes: Int, window: Int) async -> Tally {
    state.withLock { $0.window = Double(2 * window) }
    await onOwnThreads(lanes) { [self] lane in
      var rng = SeededGenerator(seed: seed &+ UInt64(lane))
      for round in stride(from: lane, to: rounds, by: lanes) {
        let window = state.withLock { Int($0.window) }
        runRound(round, delay: Int.random(in: 0...window, using: &rng))
      }
    }
    return tally
  }

  /// Every operation of the race that is not finished.
  var unfinishedOperations: [Operation] {
    operations.withLock { $0.filter { !$0.isFinished } }
  }

  /// Even rounds cancel the operation; odd rounds cancel the task awaiting it.
  private func runRound(_ round: Int, delay: Int) {
    let operation = makeOperation(round: round)
    let delivered = DispatchSemaphore(value: 0)
    let record: @Sendable (Result<QuestionsPage, any Error>) -> Void = { [state] result in
      state.withLock { tally in
        tally.deliveries[round, default: 0] += 1
        switch result {
        case .failure(is CancellationError):
          tally.cancelled += 1
          tally.window = min(tally.window * 1.05, 200_000)
        case .failure(let error as NetworkingError):
          guard case .transport = error else { return tally.other.append("\(error)") }
          tally.failed += 1
          tally.window = max(tally.window * 0.95, 1)
        default: tally.other.append("\(result)")
        }
      }
      delivered.signal()
    }
    let cancel: @Sendable () -> Void
    if round.isMultiple(of: 2) {
      manager.enqueue(operation, completion: record)
      cancel = { operation.cancel() }
    } else {
      let manager = manager
      let task = Task { record(await Result { try await manager.perform(operation) }) }
      cancel = { task.cancel() }
    }
    cancelQueue.asyncAfter(deadline: .now() + .microseconds(delay), execute: cancel)
    operations.withLock { $0.append(operation) }
    let inTime = delivered.wait(timeout: .now() + 30) == .success
    state.withLock { tally in
      tally.rounds += 1
      if !inTime { tally.hangs += 1 }
    }
  }
}
