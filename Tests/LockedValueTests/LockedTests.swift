import Foundation
import LockedValue
import Testing

/// The package's one lock box.
@Suite struct LockedTests {
  /// Many threads adding to one value under the lock lose no addition.
  @Test func concurrentUpdatesAreNeverLost() {
    let counter = Locked(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
    }
    #expect(counter.withLock { $0 } == 80_000)
  }

  #if DEBUG
    /// In a debug build, a thread that takes a lock it holds stops the process at once instead
    /// of deadlocking: the day code re-enters a lock, a test shows it. (A child process: the
    /// trap ends it, not the test run.)
    @Test func reenteringALockTrapsInDebugBuilds() async {
      await #expect(processExitsWith: .failure) {
        let lock = Locked(0)
        lock.withLock { _ in lock.withLock { $0 += 1 } }
      }
    }
  #endif
}
