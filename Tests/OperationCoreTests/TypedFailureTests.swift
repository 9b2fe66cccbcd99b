import Foundation
import OperationCore
import TestSupport
import Testing

@Suite struct TypedFailureTests {
  @Test func typedCompletionReceivesTheValue() async throws {
    let manager = OperationQueueManager(name: "typed.value")
    let results = Recorder<Result<Int, TestFailure>>()
    let operation = TestOperation<TestFailure>()
    manager.enqueue(operation) { (result: Result<Int, TestFailure>) in results.record(result) }
    #expect(await operation.started.wait())
    operation.finish(returning: 12)

    #expect(results.count == 1)
    #expect(results.values.first == .success(12))
    #expect(operation.typedResult == .success(12))
  }

  @Test func typedCompletionReceivesTheOperationsOwnFailureCase() async throws {
    let manager = OperationQueueManager(name: "typed.failure")
    let typed = Recorder<Result<Int, TestFailure>>()
    let untyped = ResultRecorder()
    let operation = TestOperation<TestFailure>()
    manager.enqueue(operation) { (result: Result<Int, TestFailure>) in typed.record(result) }
    operation.addCompletion { (result: Result<Int, any Error>) in untyped.record(result) }
    #expect(await operation.started.wait())
    operation.finish(throwing: .broken(404))

    #expect(typed.values == [.failure(.broken(404))])
    #expect(untyped.values.first?.failure as? TestFailure == .broken(404))
    #expect(operation.typedResult == .failure(.broken(404)))
  }

  @Test func cancellationArrivesTypedAndUntypedOnTheSameOperation() async throws {
    let manager = OperationQueueManager(name: "typed.cancel")
    let typed = Recorder<Result<Int, TestFailure>>()
    let untyped = ResultRecorder()
    let operation = TestOperation<TestFailure>(key: 1)
    manager.enqueue(operation) { (result: Result<Int, TestFailure>) in typed.record(result) }
    manager.enqueue(TestOperation<TestFailure>(key: 1)) { (result: Result<Int, any Error>) in
      untyped.record(result)
    }
    operation.addCompletion { (result: Result<Int, any Error>) in untyped.record(result) }
    operation.addCompletion { (result: Result<Int, TestFailure>) in typed.record(result) }
    #expect(await operation.started.wait())

    operation.cancel()

    #expect(typed.values == [.failure(.cancelled), .failure(.cancelled)])
    #expect(untyped.count == 2)
    #expect(untyped.values.allSatisfy { $0.isCancellation })
    #expect(operation.typedResult == .failure(.cancelled))
    #expect(operation.result?.isCancellation == true)
  }

  @Test func typedTimeoutArrivesThroughTheTimeoutCase() async throws {
    let manager = OperationQueueManager(name: "typed.timeout")
    let typed = Recorder<Result<Int, TestFailure>>()
    let operation = TestOperation<TestFailure>()
    operation.timeout = .milliseconds(30)
    manager.enqueue(operation) { (result: Result<Int, TestFailure>) in typed.record(result) }

    #expect(await typed.wait(forCount: 1))
    guard case .failure(.timedOut(let timeout)) = typed.values.first else {
      Issue.record("expected a typed timeout, got \(String(describing: typed.values.first))")
      return
    }
    #expect(timeout == .milliseconds(30))
    #expect(operation.isCancelled)
  }

  @Test func typedCompletionOnAFinishedOperationIsCalledAtOnce() async throws {
    let manager = OperationQueueManager(name: "typed.late")
    let operation = TestOperation<TestFailure>()
    manager.enqueue(operation)
    #expect(await operation.started.wait())
    operation.finish(throwing: .broken(404))

    let typed = Recorder<Result<Int, TestFailure>>()
    operation.addCompletion { (result: Result<Int, TestFailure>) in typed.record(result) }
    #expect(typed.values == [.failure(.broken(404))])
  }
}
