import AsyncBridge
import Foundation
import OperationBridgeTesting
import OperationCore
import TestSupport
import Testing

/// The README's first example, run as written (with a download that waits for the test).
@Suite struct ReadmeExampleTests {
  final class FetchAvatar: ConcurrentOperation<Data, any Error>, @unchecked Sendable {
    static let downloads = AsyncCounter()
    static let release = Gate()
    let userID: Int
    init(userID: Int) {
      self.userID = userID
      super.init(coalescingKey: userID)
    }
    override func main() {
      Self.downloads.increment()
      DispatchQueue.global().async { [self] in
        _ = Self.release.block(timeout: .seconds(30))
        finish(returning: Data([UInt8(userID)]))
      }
    }
  }

  @Test func theFirstExampleDoesWhatItSays() async throws {
    let manager = OperationQueueManager(name: "avatars", maxConcurrentOperationCount: 4)
    let log = EventLog(manager)
    let first = Task { try await manager.perform(FetchAvatar(userID: 7)) }
    #expect(await log.wait { $0.kind == .enqueued })
    let second = Task { try await manager.perform(FetchAvatar(userID: 7)) }
    #expect(await log.wait { $0.kind == .joined })
    let handler = Recorder<Result<Data, any Error>>()
    manager.enqueue(FetchAvatar(userID: 7)) { result in handler.record(result) }
    first.cancel()
    await expectCancellation(of: first, within: .seconds(30))
    FetchAvatar.release.open()
    let avatar = try #require(await result(of: second, within: .seconds(30))).get()
    #expect(avatar == Data([7]))
    #expect(await handler.wait(forCount: 1, timeout: .seconds(30)))
    #expect(try handler.values.first?.get() == Data([7]))
    #expect(FetchAvatar.downloads.value == 1, "one download for every caller")

    let clock = TestClock()
    let timed = OperationQueueManager(name: "avatars.timed", clock: clock)
    let quick = Task {
      try await timed.perform(ReadmeSlowOperation(), timeout: .seconds(2))
    }
    try await clock.waitUntilTimers(1)
    await clock.advance(by: .seconds(2))
    let outcome = try #require(await result(of: quick, within: .seconds(30)))
    guard case .failure(let error as OperationTimeoutError) = outcome else {
      Issue.record("expected the caller's timeout, got \(outcome)")
      return
    }
    #expect(error.scope == .caller)
  }
}

/// An operation that finishes only when cancelled.
final class ReadmeSlowOperation: ConcurrentOperation<Data, any Error>, @unchecked Sendable {}
