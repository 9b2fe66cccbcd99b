import AsyncBridge
import Foundation
import OperationCore
import TestSupport
import Testing

/// The call shapes the README shows compile as written and do what it says: these tests fail
/// to build, rather than fail, when an overload turns ambiguous.
@Suite struct ErgonomicsTests {
  @Test func anUnannotatedHandlerOfATypedOperationGetsTheTypedResult() async throws {
    let manager = OperationQueueManager(name: "ergonomics.typed")
    let operation = TestOperation<TestFailure>(key: 1, ending: .returning(4))
    let received = Recorder<Result<Int, TestFailure>>()
    manager.enqueue(operation) { result in received.record(result) }
    #expect(await received.wait(forCount: 1, timeout: .seconds(30)))
    #expect(try received.values.first?.get() == 4)
    // A closure that does not pin the type down: the typed overload is picked, not ambiguity.
    let handled = Gate()
    manager.enqueue(TestOperation<TestFailure>(key: 4, ending: .returning(1))) { result in
      print("typed handler got \(result)")
      handled.open()
    }
    #expect(await handled.wait(timeout: .seconds(30)))
  }

  @Test func anAnnotatedHandlerStillGetsTheUntypedResult() async throws {
    let manager = OperationQueueManager(name: "ergonomics.untyped")
    let operation = TestOperation<TestFailure>(key: 2, ending: .returning(5))
    let received = Recorder<Result<Int, any Error>>()
    manager.enqueue(operation) { (result: Result<Int, any Error>) in received.record(result) }
    #expect(await received.wait(forCount: 1, timeout: .seconds(30)))
    #expect(try received.values.first?.get() == 5)
  }

  @Test func runWithANilKeyRunsOnItsOwn() async throws {
    let manager = OperationQueueManager(name: "ergonomics.nilKey")
    let value = try await withDeadline(.seconds(30)) {
      try await manager.run(key: nil) { () async throws -> Int in 6 }
    }
    #expect(value == 6)
    let optionalKey: String? = nil
    let other = try await withDeadline(.seconds(30)) {
      try await manager.run(key: optionalKey) { () async throws -> Int in 7 }
    }
    #expect(other == 7)
  }

  @Test func theInFlightOperationIsFoundByItsClassAndBaseKey() async throws {
    let manager = OperationQueueManager(name: "ergonomics.lookup")
    manager.isSuspended = true
    let operation = ManualOperation(key: 8)
    manager.enqueue(operation)
    let found: ManualOperation? = manager.inFlightOperation(ManualOperation.self, key: 8)
    #expect(found === operation)
    #expect(manager.inFlightOperation(ManualOperation.self, key: 9) == nil)
    operation.cancel()
    manager.isSuspended = false
    #expect(await becomesIdle(manager, within: .seconds(30)))
  }

  @Test func aTypedCatchInsideATaskKeepsTheFailureType() async throws {
    let manager = OperationQueueManager(name: "ergonomics.catch")
    let operation = TestOperation<TestFailure>(key: 3)
    let task = Task { () async -> TestFailure? in
      do throws(TestFailure) {
        _ = try await manager.perform(operation)
        return nil
      } catch {
        switch error {
        case .broken, .cancelled, .timedOut: return error
        }
      }
    }
    #expect(await operation.started.wait(timeout: .seconds(30)))
    operation.fail(.broken(3))
    #expect(await value(of: task, within: .seconds(30)) == .broken(3))
  }
}
