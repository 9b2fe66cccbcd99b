import AsyncBridge
import FixtureServer
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

@testable import StackExchange

/// A gate's wait ending races its task's cancellation: the task is resumed exactly once (its
/// continuation is checked), and the request is admitted exactly when the task got it.
@Suite struct BackoffGateWaitRaceTests {
  @Test func cancellationRacingTheEndOfTheWaitResumesOnceAndAdmitsOnlyWhatItReturns()
    async throws
  {
    let rounds = 200
    let admitted = AsyncCounter()
    var returned = 0
    for _ in 0..<rounds {
      let clock = TestClock()
      let gate = BackoffGate(clock: OperationQueueManager(name: "gate", clock: clock).clock)
      gate.record(backoff: 1, site: "stackoverflow")
      let wait = Task {
        try await gate.whenOpen(site: "stackoverflow", longest: .seconds(60)) {
          admitted.increment()
        }
      }
      try await clock.waitUntilTimers(1)
      async let advanced: Void = clock.advance(by: .seconds(1))
      wait.cancel()
      await advanced
      switch await wait.result {
      case .success: returned += 1
      case .failure(let error): #expect(error is CancellationError, "got \(error)")
      }
      #expect(clock.pendingTimers == 0)
    }
    #expect(admitted.value == returned)
  }
}
