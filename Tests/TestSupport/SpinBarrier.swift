import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Lines two threads up before each round of a race, so their next steps overlap in time.
///
/// Spins (yielding the processor now and then) instead of blocking, so both threads leave the
/// barrier at nearly the same moment. Use it only between dedicated threads, for a bounded number
/// of short rounds.
public final class SpinBarrier: Sendable {
  private let arrivals = Atomic<Int>(0)
  private let parties: Int

  /// Creates a barrier for `parties` threads.
  public init(parties: Int) { self.parties = parties }

  /// Waits until every party has arrived at round `round` (counted from 1).
  public func arrive(round: Int) {
    arrivals.add(1, ordering: .acquiringAndReleasing)
    var spins = 0
    while arrivals.load(ordering: .acquiring) < round * parties {
      spins += 1
      // Give the processor away now and then, in case both threads share one.
      if spins % 1_000 == 0 { sched_yield() }
    }
  }
}

/// Busy-waits for about `iterations` steps (none when it is not positive).
public func spin(_ iterations: Int) {
  guard iterations > 0 else { return }
  let counter = Atomic<Int>(0)
  for _ in 0..<iterations { counter.add(1, ordering: .relaxed) }
}
