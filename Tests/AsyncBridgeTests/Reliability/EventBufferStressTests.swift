import Foundation
import OperationCore
import TestSupport
import Testing

@testable import AsyncBridge

/// Rounds of publishers, a consumer and an ending racing each other on one buffer. Invariants:
/// the consumer always returns (never a hang), gets no event twice, and gets each publisher's
/// events in the order published; with an end by `finish`, it gets every event published
/// before the end.
@Suite struct EventBufferStressTests {
  /// How a round ends.
  private enum Ending: CaseIterable {
    case finish, terminate, cancelConsumer
  }

  @Test func publishersConsumerAndEndingRaceWithoutHangsOrDisorder() async throws {
    let seed = UInt64.random(in: 1...UInt64.max)
    var rng = SeededGenerator(seed: seed)
    let deadline = ContinuousClock.now + StressBudget.scaled(.seconds(3))
    var rounds = 0
    while rounds < 20 || (ContinuousClock.now < deadline && rounds < 2_000) {
      rounds += 1
      let ending = Ending.allCases.randomElement(using: &rng)!
      let perPublisher = Int.random(in: 1...200, using: &rng)
      let publishers = Int.random(in: 1...3, using: &rng)
      let capacity = publishers * perPublisher
      let problem = await Self.round(
        ending: ending, publishers: publishers, perPublisher: perPublisher, capacity: capacity)
      if let problem {
        Issue.record("seed \(seed), round \(rounds), \(ending): \(problem)")
        return
      }
    }
  }

  /// One round; returns what went wrong, if anything.
  private static func round(
    ending: Ending, publishers: Int, perPublisher: Int, capacity: Int
  ) async -> String? {
    let buffer = EventBuffer(capacity: capacity)
    let consumer = Task { await EventBufferTests.drain(buffer).flatMap { $0 } }
    let published = EventBufferTests.publishOnThreads(
      to: buffer, publishers: publishers, perPublisher: perPublisher)
    let publishedAll: Bool
    switch ending {
    case .finish:
      publishedAll = await published.wait(untilAtLeast: publishers)
      buffer.finish()
    case .terminate:
      publishedAll = true
      Thread.detachNewThread { buffer.terminate() }
    case .cancelConsumer:
      publishedAll = true
      consumer.cancel()
    }
    let received = await completing(within: .seconds(30)) { await consumer.value }
    guard publishedAll, let received else { return "the consumer never returned" }
    if Set(received).count != received.count { return "an event arrived twice" }
    for publisher in 0..<publishers {
      let own = received.filter { $0 / perPublisher == publisher }
      if own != own.sorted() { return "publisher \(publisher)'s events out of order" }
    }
    if ending == .finish && received.count != publishers * perPublisher {
      return "\(received.count) of \(publishers * perPublisher) events before the end arrived"
    }
    // Let the publishers of an early ending finish before the next round.
    _ = await published.wait(untilAtLeast: publishers)
    return nil
  }
}
