import Foundation
import OperationCore
import TestSupport
import Testing

@Suite struct ChainingTests {
  @Test func upstreamValueFlowsIntoTheDownstreamOperation() async throws {
    let manager = OperationQueueManager(name: "chain.value")
    let upstream = ManualOperation()
    let downstream = DescribeOperation(upstream: upstream)
    #expect(downstream.dependencies.contains { $0 === upstream })
    let results = Recorder<Result<String, any Error>>()
    manager.enqueue(downstream) { results.record($0) }
    manager.enqueue(upstream)
    #expect(await upstream.started.wait())
    #expect(results.count == 0)

    upstream.release(21)
    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.value == "value 21")
    #expect(downstream.receivedInputs == [21])
    #expect(await becomesIdle(manager))
  }

  /// How an upstream ends without a value.
  enum UpstreamEnding: CaseIterable, Sendable {
    case failure, cancellation
  }

  @Test(arguments: UpstreamEnding.allCases)
  func anUpstreamEndingWithoutAValueHandsItsEndingToTheDownstreamCaller(
    ending: UpstreamEnding
  ) async throws {
    let manager = OperationQueueManager(name: "chain.\(ending)")
    let upstream = ManualOperation()
    let downstream = DescribeOperation(upstream: upstream)
    let results = Recorder<Result<String, any Error>>()
    manager.enqueue(upstream)
    manager.enqueue(downstream) { results.record($0) }
    #expect(await upstream.started.wait())

    switch ending {
    case .failure: upstream.finish(throwing: TestFailure.broken(404))
    case .cancellation: upstream.cancel()
    }
    #expect(await results.wait(forCount: 1))
    let failure = results.values.first?.failure
    switch ending {
    case .failure: #expect(failure as? TestFailure == TestFailure.broken(404))
    case .cancellation: #expect(failure is CancellationError)
    }
    #expect(downstream.receivedInputs.isEmpty)
    #expect(await becomesIdle(manager))
    #expect(downstream.isFinished)
  }

  @Test func typedUpstreamFailureReachesTheDownstreamCallerTyped() async throws {
    let manager = OperationQueueManager(name: "chain.typedFailure")
    let upstream = TestOperation<TestFailure>()
    let downstream = DescribeOperation(upstream: upstream)
    let results = Recorder<Result<String, TestFailure>>()
    manager.enqueue(upstream)
    manager.enqueue(downstream) { (result: Result<String, TestFailure>) in results.record(result) }
    #expect(await upstream.started.wait())

    upstream.finish(throwing: .broken(404))
    #expect(await results.wait(forCount: 1))
    #expect(results.values == [.failure(.broken(404))])
    #expect(downstream.receivedInputs.isEmpty)
  }

  @Test func upstreamCancelledBeforeStartReachesTheDownstreamCaller() async throws {
    let manager = OperationQueueManager(name: "chain.cancelEarly")
    manager.isSuspended = true
    let upstream = ManualOperation(ending: .returning(1))
    let plainDownstream = DescribeOperation(upstream: upstream)
    let results = Recorder<Result<String, any Error>>()
    manager.enqueue(upstream)
    manager.enqueue(plainDownstream) { results.record($0) }
    upstream.cancel()
    manager.isSuspended = false

    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.failure is CancellationError)
    #expect(plainDownstream.receivedInputs.isEmpty)
    #expect(upstream.mainCallCount == 0)
    #expect(await becomesIdle(manager))
  }

  @Test func upstreamTimeoutReachesTheDownstreamCallerAsATimeout() async throws {
    let manager = OperationQueueManager(name: "chain.timeout")
    let upstream = ManualOperation()
    upstream.timeout = .milliseconds(30)
    let downstream = DescribeOperation(upstream: upstream)
    let results = Recorder<Result<String, any Error>>()
    manager.enqueue(upstream)
    manager.enqueue(downstream) { results.record($0) }

    #expect(await results.wait(forCount: 1))
    let error = try #require(results.values.first?.failure as? OperationTimeoutError)
    #expect(error.timeout == .milliseconds(30))
    #expect(!(results.values.first?.failure is CancellationError))
    #expect(downstream.receivedInputs.isEmpty)
    #expect(await becomesIdle(manager))
  }

  /// An upstream whose key is in flight joins that work and is dropped, never to run; the
  /// downstream then takes that work's value, and the dropped upstream, its dependency, is
  /// released with that work. Both ways in: the caller enqueued the upstream first, or
  /// the manager did for the downstream.
  @Test(arguments: [true, false])
  func aDownstreamWhoseUpstreamJoinsWorkInFlightGetsThatWorksValue(
    upstreamEnqueuedFirst: Bool
  ) async throws {
    let manager = OperationQueueManager(name: "chain.joined")
    let inFlight = ManualOperation(key: 1)
    manager.enqueue(inFlight) { _ in }
    #expect(await inFlight.started.wait())
    let upstream = ManualOperation(key: 1)
    if upstreamEnqueuedFirst { #expect(manager.enqueue(upstream) === inFlight) }
    let downstream = DescribeOperation(upstream: upstream)
    let results = Recorder<Result<String, any Error>>()
    manager.enqueue(downstream) { results.record($0) }

    inFlight.release(21)
    #expect(await results.wait(forCount: 1))
    #expect(results.values.first?.value == "value 21")
    // The dropped upstream never ran: it finished with the work it joined, with its outcome.
    #expect(upstream.mainCalls.value == 0)
    #expect(upstream.isFinished)
    #expect(upstream.result?.value == 21)
    #expect(await becomesIdle(manager))
  }

  @Test func chainRunsAcrossTwoManagers() async throws {
    let network = OperationQueueManager(name: "chain.network")
    let parsing = OperationQueueManager(name: "chain.parsing", maxConcurrentOperationCount: 1)
    let upstream = ManualOperation(ending: .returning(5))
    let downstream = DescribeOperation(upstream: upstream, coalescingKey: "five")
    let results = Recorder<Result<String, any Error>>()
    parsing.enqueue(downstream) { results.record($0) }
    parsing.enqueue(DescribeOperation(upstream: upstream, coalescingKey: "five")) {
      results.record($0)
    }
    network.enqueue(upstream)

    #expect(await results.wait(forCount: 2))
    #expect(results.values.compactMap(\.value) == ["value 5", "value 5"])
    #expect(downstream.receivedInputs == [5])
  }
}
