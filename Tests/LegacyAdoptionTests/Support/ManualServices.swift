import Foundation
import LockedValue
import OperationCore
import TestSupport

/// A ``LegacyQuestionService`` whose requests the test answers by hand; it counts them, and
/// opens `firstRequest` when the first arrives.
final class ManualQuestionService: LegacyQuestionService {
  private let pending = Locked<[@Sendable (Result<[String], any Error>) -> Void]>([])
  private let count = Locked(0)
  let firstRequest = Gate()

  /// How many requests arrived.
  var requestCount: Int { count.withLock { $0 } }

  func fetchTitles(
    site: String, completion: @escaping @Sendable (Result<[String], any Error>) -> Void
  ) {
    pending.withLock { $0.append(completion) }
    count.withLock { $0 += 1 }
    firstRequest.open()
  }

  /// Answers every pending request with `result`.
  func answer(_ result: Result<[String], any Error>) {
    let completions = pending.withLock { pending in
      defer { pending = [] }
      return pending
    }
    for completion in completions { completion(result) }
  }
}

/// A ``LegacyQuestionStore`` that answers from a dictionary, at once.
struct FixedQuestionStore: LegacyQuestionStore {
  let questions: [Int: QuestionRecord]

  func question(id: Int, completion: @escaping @Sendable (QuestionRecord?) -> Void) {
    completion(questions[id])
  }
}

extension OperationQueue {
  /// Runs this queue's operations on threads of a queue of their own instead of the global
  /// pool's, for operations that block (``BlockingWork``). The global pool is as wide as the
  /// machine has cores: on one core, a blocked operation would stall every task and every
  /// queue in the process until it timed out. Returns that queue: keep it alive while this
  /// queue runs (Foundation holds it unowned).
  func runsBlockingWork(label: String) -> DispatchQueue {
    let threads = DispatchQueue(label: label, attributes: .concurrent)
    underlyingQueue = threads
    return threads
  }
}

/// Runs `body` on a new thread-pool thread after blocking it until `gate` opens (bounded),
/// counting executions: the work of a `BlockOperation` that never checks `isCancelled`.
final class BlockingWork: Sendable {
  private let gate = Gate()
  private let runs = Locked(0)
  let started = Gate()

  /// How many times the work ran.
  var runCount: Int { runs.withLock { $0 } }

  /// Lets the work (every run of it) go on.
  func release() {
    gate.open()
  }

  /// The block: counts the run, announces it, then waits for `release()` (bounded).
  func run() {
    runs.withLock { $0 += 1 }
    started.open()
    _ = gate.block()
  }
}
