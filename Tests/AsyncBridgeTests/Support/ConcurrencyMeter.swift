import Synchronization

/// Counts how many closures run at once, and the most that ever did.
final class ConcurrencyMeter: Sendable {
  private let running = Atomic<Int>(0)
  private let peakStorage = Atomic<Int>(0)

  /// The most closures that ran at once.
  var peak: Int { peakStorage.load(ordering: .sequentiallyConsistent) }

  /// A closure started.
  func enter() {
    let now = running.add(1, ordering: .sequentiallyConsistent).newValue
    peakStorage.max(now, ordering: .sequentiallyConsistent)
  }

  /// A closure is about to return.
  func leave() {
    running.subtract(1, ordering: .sequentiallyConsistent)
  }
}
