import LockedValue
import OperationCore
import TestSupport
import Testing

@testable import AsyncBridge

/// The gate a `run` closure's task waits at until the queue starts its operation, on its own.
/// Its invariants: the task gets exactly one verdict, the first one given, whichever of the
/// task and the verdict arrives first; a verdict given twice changes nothing; nothing is
/// resumed by the side that arrives first.
@Suite struct RunStartGateTests {
  final class Owner: RunOwner {
    func settle(erased outcome: ErasedOutcome) {}
  }

  // MARK: The stages, input by input

  @Test func aVerdictBeforeTheTaskIsKeptForIt() {
    let owner = Owner()
    var stage = RunStartGate.Stage.waiting
    #expect(stage.decide(owner).isNone)
    guard case .decided(let kept?) = stage else {
      Issue.record("expected the verdict kept, got \(stage)")
      return
    }
    #expect(kept === owner)
    #expect(stage.decide(nil).isNone)  // Only the first verdict counts.
    guard case .decided(let stillKept?) = stage else {
      Issue.record("expected the first verdict kept, got \(stage)")
      return
    }
    #expect(stillKept === owner)
  }

  @Test func theTaskTakesAVerdictGivenBeforeItWithoutWaiting() {
    let owner = Owner()
    var stage = RunStartGate.Stage.waiting
    #expect(stage.takeVerdict() == nil)  // None given: it waits.
    _ = stage.decide(owner)
    guard case .some(let taken?) = stage.takeVerdict() else {
      Issue.record("expected the verdict taken")
      return
    }
    #expect(taken === owner)
    #expect(stage.isPassed)
    #expect(stage.takeVerdict() == nil)  // Taken once.
    var discarded = RunStartGate.Stage.waiting
    _ = discarded.decide(nil)
    guard case .some(nil) = discarded.takeVerdict() else {
      Issue.record("expected the discard taken")
      return
    }
  }

  @Test func theTaskArrivingAfterAVerdictIsResumedWithIt() async {
    let owner = Owner()
    var stage = RunStartGate.Stage.waiting
    _ = stage.decide(owner)
    let got = await withCheckedContinuation { continuation in
      var action = stage.park(continuation)
      #expect(stage.isPassed)
      action.perform()
    }
    #expect(got === owner)
  }

  @Test func aDiscardBeforeTheTaskResumesItWithNothing() async {
    var stage = RunStartGate.Stage.waiting
    _ = stage.decide(nil)
    let got = await withCheckedContinuation { continuation in
      var action = stage.park(continuation)
      action.perform()
    }
    #expect(got == nil)
  }

  @Test func aTaskWaitingIsResumedByTheFirstVerdictOnly() async {
    let first = Owner()
    let stage = LockedStage()
    async let got = withCheckedContinuation { continuation in
      #expect(stage.park(continuation).isNone)
    }
    #expect(await eventually { stage.isParked })
    var action = stage.decide(first)
    #expect(stage.decide(Owner()).isNone)
    #expect(stage.decide(nil).isNone)
    action.perform()
    #expect(await got === first)
  }

  // MARK: The gate, raced

  /// The task and the verdict race from two threads, many times: every task gets the verdict
  /// given, exactly once.
  @Test func theTaskAndTheVerdictRacingAgreeEveryTime() async {
    for round in 0..<2_000 {
      let gate = RunStartGate(madeAt: .medium)
      let owner = round.isMultiple(of: 3) ? nil : Owner()
      async let got = gate.wait()
      if round.isMultiple(of: 2) { await Task.yield() }
      if let owner { gate.open(for: owner) } else { gate.discard() }
      gate.discard()  // A second verdict changes nothing.
      let received = await got
      #expect(received === owner, "round \(round)")
    }
  }

  /// A stage behind a lock, for the tests that give a verdict while the task waits.
  final class LockedStage: Sendable {
    private let stage = Locked(RunStartGate.Stage.waiting)

    func park(_ continuation: CheckedContinuation<(any RunOwner)?, Never>) -> RunStartGate.Action {
      stage.withLock { $0.park(continuation) }
    }
    func decide(_ owner: (any RunOwner)?) -> RunStartGate.Action {
      stage.withLock { $0.decide(owner) }
    }
    var isParked: Bool {
      stage.withLock { if case .parked = $0 { true } else { false } }
    }
  }
}

extension RunStartGate.Action {
  var isNone: Bool { if case .none = self { true } else { false } }

  /// Resumes the task as the gate does once its lock is let go.
  mutating func perform() {
    if case .resume(let continuation, let owner) = self {
      self = .none
      continuation.resume(returning: owner)
    }
  }
}

extension RunStartGate.Stage {
  var isPassed: Bool { if case .passed = self { true } else { false } }
}
