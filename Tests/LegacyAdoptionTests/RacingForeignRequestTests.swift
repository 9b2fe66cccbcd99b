import AsyncBridge
import Foundation
import LockedValue
import OperationCore
import TestSupport
import Testing

/// Requests racing for one fresh foreign instance: a caller that stays never takes the
/// cancellation that another caller's leaving caused, and the instance runs once.
@Suite struct RacingForeignRequestTests {
  /// The interleaving, held with gates: the first request installs the instance's adapter and
  /// is held inside its admission (its manager compares keys), before its manager claims the
  /// adapter. The second request, through another manager, finds that adapter installed and
  /// not yet claimed. Its admission must make it one of the adapter's callers, through the
  /// adapter's lock, before the first caller can leave: then the first caller leaving cancels
  /// nothing under it, and it gets the run. (A second request that admitted the adapter as its
  /// own is held at the same comparison until the first caller has left, and would then find
  /// the adapter claimed and cancelled.)
  @Test func aRequestRacingTheInstallersClaimNeverTakesTheCancellationOfItsLeaving() async {
    let first = OperationQueueManager()
    let second = OperationQueueManager()
    first.isSuspended = true
    second.isSuspended = true
    // Work of the same class in flight in each manager, under a key every racing key collides
    // with: admitting under a racing key then compares keys, which the gates hold.
    let occupants = [first, second].map { manager in
      Task {
        try await manager.perform(
          FetchTitlesOperation(site: "occupant", service: ManualQuestionService()),
          coalescingKey: CollidingKey("occupant"))
      }
    }
    #expect(await eventually { first.outstandingOperationCount == 1 })
    #expect(await eventually { second.outstandingOperationCount == 1 })
    let service = ManualQuestionService()
    let fetch = FetchTitlesOperation(site: "raced", service: service)
    let firstHeld = Gate()
    let releaseFirst = Gate()
    let secondHeld = Gate()
    let releaseSecond = Gate()
    // The first key's first comparison holds the first request before its claim; its next
    // one holds a request that admits the first request's adapter as its own.
    let firstKey = CollidingKey(
      "first",
      onFirstComparison: {
        firstHeld.open()
        _ = releaseFirst.block()
      },
      then: {
        secondHeld.open()
        _ = releaseSecond.block()
      })
    // The hooks block the admitting thread: the first request's task gets a thread of its own.
    let leaving = Task(executorPreference: OwnThreadExecutor()) {
      try await first.perform(fetch, coalescingKey: firstKey)
    }
    #expect(await firstHeld.wait())
    let secondAdmitted = Gate()
    let handled = Recorder<Result<[String], any Error>>()
    DispatchQueue(label: "racing.second").async {
      second.enqueue(fetch, coalescingKey: CollidingKey("second")) { handled.record($0) }
      secondAdmitted.open()
    }
    // The second request is admitted, or held inside an admission of its own.
    #expect(await eventually { secondAdmitted.isOpen || secondHeld.isOpen })
    // Admitted without being held: the first request passes its later comparisons freely.
    if !secondHeld.isOpen { releaseSecond.open() }
    releaseFirst.open()
    leaving.cancel()
    #expect(await error(of: leaving) is CancellationError)
    if secondHeld.isOpen { releaseSecond.open() }
    #expect(await secondAdmitted.wait())
    first.isSuspended = false
    second.isSuspended = false
    #expect(await eventually { service.requestCount == 1 || handled.count == 1 })
    service.answer(.success(["raced"]))
    #expect(await handled.wait(forCount: 1))
    #expect((try? handled.values.first?.get()) == ["raced"])
    #expect(service.requestCount == 1)
    for occupant in occupants { occupant.cancel() }
    for occupant in occupants { #expect(await error(of: occupant) is CancellationError) }
    #expect(await becomesIdle(first, within: .seconds(30)))
    #expect(await becomesIdle(second, within: .seconds(30)))
  }

  /// Two tasks request one fresh instance (through one manager, two managers, or one manager
  /// under two keys), and one of them is cancelled at a random point. The other always gets
  /// the instance's value, never `CancellationError`, and the instance runs once. The
  /// operation ignores `cancel()`, so nothing but a leaked cancellation can fail the caller
  /// that stays.
  @Test func theCallerThatStaysAlwaysGetsTheValueOfTheInstanceRunOnce() async {
    var random = SeededGenerator(seed: 26)
    let managers = [OperationQueueManager(), OperationQueueManager()]
    var failures: [String] = []
    for round in 0..<2_000 {
      let instance = StubbornValueOperation(value: round)
      let path = round % 3
      let firstManager = managers[0]
      let secondManager = path == 1 ? managers[1] : managers[0]
      let firstKey: String? = path == 2 ? "first-\(round)" : nil
      let secondKey: String? = path == 2 ? "second-\(round)" : nil
      let a = Task { try await firstManager.perform(instance, coalescingKey: firstKey) }
      let b = Task { try await secondManager.perform(instance, coalescingKey: secondKey) }
      let (leaving, staying) = Bool.random(using: &random) ? (a, b) : (b, a)
      for _ in 0..<Int.random(in: 0..<6, using: &random) { await Task.yield() }
      leaving.cancel()
      switch await result(of: staying) {
      case .success(let value)?:
        if value != round { failures.append("round \(round): the value of round \(value)") }
      case .failure(let error)?:
        failures.append("round \(round): \(error)")
      case nil:
        failures.append("round \(round): the staying caller hung")
      }
      guard await result(of: leaving) != nil else {
        failures.append("round \(round): the leaving caller hung")
        break
      }
      if instance.runs != 1 { failures.append("round \(round): \(instance.runs) runs") }
      if failures.count >= 10 { break }
    }
    #expect(failures.isEmpty, "\(failures.count) failures: \(failures)")
    for manager in managers { #expect(await becomesIdle(manager, within: .seconds(30))) }
  }
}

/// A coalescing key whose every value hashes alike, so a manager admitting under it compares
/// it with the one in flight; its first comparisons run one-shot hooks, one each.
private struct CollidingKey: Hashable, Sendable {
  private final class Hooks: Sendable {
    let pending = Locked<[@Sendable () -> Void]>([])
  }

  let name: String
  private let hooks = Hooks()

  init(_ name: String, onComparisons hooks: [@Sendable () -> Void] = []) {
    self.name = name
    self.hooks.pending.withLock { $0 = hooks }
  }

  init(
    _ name: String, onFirstComparison first: @escaping @Sendable () -> Void,
    then second: @escaping @Sendable () -> Void
  ) {
    self.init(name, onComparisons: [first, second])
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    for key in [lhs, rhs] {
      key.hooks.pending.withLock { $0.isEmpty ? nil : $0.removeFirst() }?()
    }
    return lhs.name == rhs.name
  }

  func hash(into hasher: inout Hasher) { hasher.combine(0) }
}

/// A synchronous operation that produces its value whether or not it was cancelled: its
/// `cancel()` does nothing, as in legacy code that never checks `isCancelled`.
private final class StubbornValueOperation: Operation, ResultProducingOperation,
  @unchecked Sendable
{
  private let value: Int
  private let state = Locked<(runs: Int, outcome: Result<Int, any Error>?)>((0, nil))

  init(value: Int) { self.value = value }

  /// How many times `main()` ran.
  var runs: Int { state.withLock { $0.runs } }

  var outcome: Result<Int, any Error>? { state.withLock { $0.outcome } }

  override func main() {
    state.withLock {
      $0.runs += 1
      $0.outcome = .success(value)
    }
  }

  override func cancel() {}
}
