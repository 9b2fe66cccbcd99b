import Foundation
import OperationCore
import TestSupport

/// What one new operation of a stress round looks like.
struct StressOperationPlan: Sendable {
  var key: Int?
  var ending: ProbedOperation.Ending
  var fails: Bool
  var timeout: Duration?
  var priority: Operation.QueuePriority?
  /// What an awaiting caller asks for when every caller of its work has left.
  var whenAbandoned: AbandonmentPolicy = .cancel
}

/// Where a completion handler asks to be called.
enum StressCallback: Sendable {
  /// No callback queue: on the thread that settles the operation (or at once, inside the
  /// enqueue call, when the operation has settled already).
  case settlingThread
  case dispatchQueue
  case operationQueue
}

/// One step of a lane. Steps that refer to earlier work pick it with `pick` modulo the number
/// of candidates at the time the step runs, so a script is fixed by the seed while what it
/// hits depends on the interleaving.
enum StressAction: Sendable {
  /// A new operation enqueued with a completion handler: fresh work or a join.
  case enqueueWithHandler(StressOperationPlan, StressCallback)
  /// A new operation enqueued without waiting for it: an interest that never leaves.
  case enqueueWithoutWaiter(StressOperationPlan)
  /// A new task awaiting `manager.perform` of a new operation: fresh work or an async join.
  case perform(StressOperationPlan)
  /// An operation already in the queue enqueued again, with a completion handler.
  case enqueueAgain(pick: Int)
  /// One new operation enqueued from this lane and from a global queue at the same time.
  case enqueueFromTwoThreads(StressOperationPlan)
  case cancelTask(pick: Int)
  case cancelOperation(pick: Int)
  /// An operation finished with its planned outcome on this lane's thread.
  case finishHere(pick: Int)
  /// An operation finished with its planned outcome from a global queue, a little later.
  case finishElsewhere(pick: Int, microseconds: Int)
  case cancelAll
  /// `manager.forget(key:)`: the work in flight for the key is no longer joined.
  case forget(key: Int)
  case suspend
  case resume
  /// A new task awaiting `manager.waitUntilIdle()`.
  case waitForIdle
  case cancelIdleWait(pick: Int)
  /// A short pause: a `Task.yield()` in a task lane, a sleep in a thread lane.
  case pause(microseconds: Int)
}

/// Everything random about one round, drawn from the run's seed and the round number alone,
/// so a failing round can be replayed with the same scripts.
struct StressRoundPlan: Sendable {
  var maxConcurrentOperationCount: Int
  var startsSuspended: Bool
  var stallThreshold: Duration?
  var keySpace: Int
  /// Scripts of lanes that run on threads of their own.
  var threadLanes: [[StressAction]]
  /// Scripts of lanes that run as tasks.
  var taskLanes: [[StressAction]]

  var actionCount: Int { (threadLanes + taskLanes).reduce(0) { $0 + $1.count } }

  init(seed: UInt64, round: Int) {
    var rng = SeededGenerator(seed: seed ^ (UInt64(round) &* 0xD1B5_4A32_D192_ED03))
    maxConcurrentOperationCount = Int.random(in: 1...3, using: &rng)
    startsSuspended = Int.random(in: 0..<10, using: &rng) < 3
    stallThreshold = Int.random(in: 0..<4, using: &rng) == 0 ? .milliseconds(2) : nil
    keySpace = Int.random(in: 2...4, using: &rng)
    let keySpace = keySpace
    threadLanes = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
      Self.script(keySpace: keySpace, using: &rng)
    }
    taskLanes = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
      Self.script(keySpace: keySpace, using: &rng)
    }
  }

  private static func script(keySpace: Int, using rng: inout SeededGenerator) -> [StressAction] {
    (0..<Int.random(in: 6...20, using: &rng)).map { _ in action(keySpace: keySpace, using: &rng) }
  }

  private static func action(keySpace: Int, using rng: inout SeededGenerator) -> StressAction {
    let pick = Int.random(in: 0..<1_000, using: &rng)
    switch Int.random(in: 0..<100, using: &rng) {
    case 0..<18:
      let callback: StressCallback =
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: .settlingThread
        case 1: .dispatchQueue
        default: .operationQueue
        }
      return .enqueueWithHandler(operation(keySpace: keySpace, using: &rng), callback)
    case 18..<22: return .enqueueWithoutWaiter(operation(keySpace: keySpace, using: &rng))
    case 22..<40: return .perform(operation(keySpace: keySpace, using: &rng))
    case 40..<44: return .enqueueAgain(pick: pick)
    case 44..<47: return .enqueueFromTwoThreads(operation(keySpace: keySpace, using: &rng))
    case 47..<57: return .cancelTask(pick: pick)
    case 57..<63: return .cancelOperation(pick: pick)
    case 63..<68: return .finishHere(pick: pick)
    case 68..<74:
      return .finishElsewhere(pick: pick, microseconds: Int.random(in: 0...300, using: &rng))
    case 74..<76: return .cancelAll
    case 76..<77: return .forget(key: Int.random(in: 0..<keySpace, using: &rng))
    case 77..<79: return .suspend
    case 79..<83: return .resume
    case 83..<86: return .waitForIdle
    case 86..<88: return .cancelIdleWait(pick: pick)
    default: return .pause(microseconds: Int.random(in: 0...200, using: &rng))
    }
  }

  private static func operation(
    keySpace: Int, using rng: inout SeededGenerator
  ) -> StressOperationPlan {
    let key =
      Int.random(in: 0..<5, using: &rng) == 0 ? nil : Int.random(in: 0..<keySpace, using: &rng)
    let ending: ProbedOperation.Ending =
      switch Int.random(in: 0..<100, using: &rng) {
      case 0..<25: .inMain
      case 25..<50: .soon(microseconds: Int.random(in: 0...500, using: &rng))
      case 50..<80: .whenReleased
      default: .never
      }
    // A jammed operation always has a timeout: it is what ends it.
    let timeout: Duration? =
      switch ending {
      case .never: .milliseconds(Int.random(in: 1...15, using: &rng))
      case .whenReleased where Int.random(in: 0..<4, using: &rng) == 0:
        .milliseconds(Int.random(in: 1...20, using: &rng))
      case .inMain, .soon, .whenReleased:
        Int.random(in: 0..<10, using: &rng) == 0 ? .milliseconds(30) : nil
      }
    let priorities: [Operation.QueuePriority?] = [nil, .low, .normal, .high]
    var plan = StressOperationPlan(
      key: key, ending: ending, fails: Int.random(in: 0..<100, using: &rng) < 15,
      timeout: timeout, priority: priorities[Int.random(in: 0..<4, using: &rng)])
    // An awaiting caller mostly lets its work be cancelled when everyone has left; some keep
    // it to its end, or for a short linger on the manager's (continuous) clock.
    plan.whenAbandoned =
      switch Int.random(in: 0..<10, using: &rng) {
      case 0: .finish
      case 1: .linger(.microseconds(Int.random(in: 50...2_000, using: &rng)))
      default: .cancel
      }
    return plan
  }
}
