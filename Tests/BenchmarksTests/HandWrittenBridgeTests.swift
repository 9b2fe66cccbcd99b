import Foundation
import TestSupport
import Testing

@testable import Benchmarks

/// The await scenarios' baseline is correct code a user would ship: it returns when its
/// operation ran, and a cancelled caller cancels its operation and gets `CancellationError`.
@Suite struct HandWrittenBridgeTests {
  @Test func returnsOnceTheOperationRan() async {
    let queue = OperationQueue()

    let returned = await completing {
      (try? await Benchmark.HandWrittenBridge.perform(on: queue)) != nil
    }

    #expect(returned == true)
  }

  @Test func cancellingTheCallerCancelsTheOperation() async throws {
    let queue = OperationQueue()
    queue.isSuspended = true
    let caller = Task { () -> (any Error)? in
      do {
        try await Benchmark.HandWrittenBridge.perform(on: queue)
        return nil
      } catch {
        return error
      }
    }
    try #require(await eventually { queue.operationCount == 1 })

    caller.cancel()
    queue.isSuspended = false  // A suspended queue keeps even cancelled operations.
    let outcome = await completing { await caller.value }

    let error = try #require(outcome, "the caller did not return")
    #expect(error is CancellationError, "the operation ran instead of being cancelled")
  }
}
