import TestSupport
import Testing

@testable import Benchmarks

/// The fan-in scenario's context baseline is correct code a user would ship: callers of one key
/// share one execution, a cancelled caller leaves at once without disturbing the others, and
/// the last caller to leave cancels the shared work, which a later caller does not join.
@Suite struct LeavingSingleflightTests {
  private let key = "k"

  @Test func callersOfOneKeyShareOneExecution() async throws {
    let singleflight = Benchmark.LeavingSingleflight()
    let executions = AsyncCounter()
    let release = Gate()
    let work: @Sendable () async throws -> Int = {
      executions.increment()
      await release.wait()
      return 42
    }
    let callers = (0..<3).map { _ in Task { try await singleflight.value(for: key, work) } }
    try #require(await eventually { singleflight.callerCount(for: key) == 3 })

    release.open()

    for caller in callers { #expect(try await caller.value == 42) }
    #expect(executions.value == 1)
  }

  @Test func aCancelledCallerLeavesAtOnceAndTheOthersKeepWaiting() async throws {
    let singleflight = Benchmark.LeavingSingleflight()
    let release = Gate()
    let work: @Sendable () async throws -> Int = {
      await release.wait()
      return 42
    }
    let leaving = Task { try await singleflight.value(for: key, work) }
    let staying = Task { try await singleflight.value(for: key, work) }
    try #require(await eventually { singleflight.callerCount(for: key) == 2 })

    leaving.cancel()
    let left = await completing { await leaving.result }

    let outcome = try #require(left, "the cancelled caller was not let go while the work ran")
    #expect(throws: CancellationError.self) { try outcome.get() }
    #expect(singleflight.callerCount(for: key) == 1)
    release.open()
    #expect(try await staying.value == 42)
  }

  @Test func theLastCallerToLeaveCancelsTheWork() async throws {
    let singleflight = Benchmark.LeavingSingleflight()
    let workCancelled = Gate()
    let work: @Sendable () async throws -> Int = {
      do {
        try await Task.sleep(for: .seconds(60))
      } catch {
        workCancelled.open()
        throw error
      }
      return 42
    }
    let caller = Task { try await singleflight.value(for: key, work) }
    try #require(await eventually { singleflight.callerCount(for: key) == 1 })

    caller.cancel()

    #expect(await workCancelled.wait(), "the shared work was not cancelled")
    await #expect(throws: CancellationError.self) { try await caller.value }
  }

  @Test func aCallerAfterTheLastOneLeftStartsAfresh() async throws {
    let singleflight = Benchmark.LeavingSingleflight()
    let executions = AsyncCounter()
    let firstCancelled = Gate()
    let work: @Sendable () async throws -> Int = {
      let execution = executions.increment()
      guard execution == 1 else { return 42 }
      // The first execution outlives its cancellation, so a new caller could still find it.
      await firstCancelled.wait()
      throw CancellationError()
    }
    let leaving = Task { try await singleflight.value(for: key, work) }
    try #require(await eventually { singleflight.callerCount(for: key) == 1 })
    leaving.cancel()
    await #expect(throws: CancellationError.self) { try await leaving.value }

    let later = try await singleflight.value(for: key, work)

    #expect(later == 42, "the later caller joined the cancelled work")
    #expect(executions.value == 2)
    firstCancelled.open()
  }

  @Test func anAlreadyCancelledCallerStartsNothing() async {
    let singleflight = Benchmark.LeavingSingleflight()
    let executions = AsyncCounter()
    let caller = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await singleflight.value(for: key) {
        executions.increment()
        return 42
      }
    }

    await #expect(throws: CancellationError.self) { try await caller.value }
    #expect(executions.value == 0)
  }
}
