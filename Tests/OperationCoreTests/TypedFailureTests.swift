import Foundation
import OperationCore
import TestSupport
import Testing

@Suite struct TypedFailureTests {
  @Test func typedCompletionReceivesTheValue() async throws {
    let manager = OperationQueueManager(name: "typed.value")
    let results = Recorder<Result<Int, LoadFailure>>()
    let operation = TestOperation<LoadFailure>()
    manager.enqueue(operation) { (result: Result<Int, LoadFailure>) in results.record(result) }
    #expect(await operation.started.wait())
    operation.finish(returning: 12)

    #expect(results.count == 1)
    #expect(results.values.first == .success(12))
    #expect(operation.typedResult == .success(12))
  }

  @Test func typedCompletionReceivesTheOperationsOwnFailureCase() async throws {
    let manager = OperationQueueManager(name: "typed.failure")
    let typed = Recorder<Result<Int, LoadFailure>>()
    let untyped = ResultRecorder()
    let operation = TestOperation<LoadFailure>()
    manager.enqueue(operation) { (result: Result<Int, LoadFailure>) in typed.record(result) }
    operation.addCompletion { (result: Result<Int, any Error>) in untyped.record(result) }
    #expect(await operation.started.wait())
    operation.finish(throwing: .notFound)

    #expect(typed.values == [.failure(.notFound)])
    #expect(untyped.values.first?.failure as? LoadFailure == .notFound)
    #expect(operation.typedResult == .failure(.notFound))
  }

  @Test func cancellationArrivesTypedAndUntypedOnTheSameOperation() async throws {
    let manager = OperationQueueManager(name: "typed.cancel")
    let typed = Recorder<Result<Int, LoadFailure>>()
    let untyped = ResultRecorder()
    let operation = TestOperation<LoadFailure>(key: 1)
    manager.enqueue(operation) { (result: Result<Int, LoadFailure>) in typed.record(result) }
    manager.enqueue(TestOperation<LoadFailure>(key: 1)) { (result: Result<Int, any Error>) in
      untyped.record(result)
    }
    operation.addCompletion { (result: Result<Int, any Error>) in untyped.record(result) }
    operation.addCompletion { (result: Result<Int, LoadFailure>) in typed.record(result) }
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
    let typed = Recorder<Result<Int, LoadFailure>>()
    let operation = TestOperation<LoadFailure>()
    operation.timeout = .milliseconds(30)
    manager.enqueue(operation) { (result: Result<Int, LoadFailure>) in typed.record(result) }

    #expect(await typed.wait(forCount: 1))
    guard case .failure(.timedOut(let error)) = typed.values.first else {
      Issue.record("expected a typed timeout, got \(String(describing: typed.values.first))")
      return
    }
    #expect(error.timeout == .milliseconds(30))
    #expect(operation.isCancelled)
  }

  @Test func typedCompletionOnAFinishedOperationIsCalledAtOnce() async throws {
    let manager = OperationQueueManager(name: "typed.late")
    let operation = TestOperation<LoadFailure>()
    manager.enqueue(operation)
    #expect(await operation.started.wait())
    operation.finish(throwing: .notFound)

    let typed = Recorder<Result<Int, LoadFailure>>()
    operation.addCompletion { (result: Result<Int, LoadFailure>) in typed.record(result) }
    #expect(typed.values == [.failure(.notFound)])
  }
}
