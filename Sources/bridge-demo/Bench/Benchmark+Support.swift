import Foundation
import OperationCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

extension Benchmark {
  /// The cheapest possible operation: finishes with a value as soon as it starts.
  final class NoOpOperation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
    // No state of its own; the base class guards its state with its lock.

    /// Finishes at once with 1.
    override func main() {
      finish(returning: 1)
    }
  }

  /// Counts arrivals down to zero and resumes one waiting task when the last one arrives.
  final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let continuation = Locked<CheckedContinuation<Void, Never>?>(nil)

    /// Creates a countdown that waits for `count` arrivals.
    init(_ count: Int) {
      remaining = Atomic(count)
    }

    /// Records one arrival; the last one resumes the waiter.
    func arrive() {
      if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
        continuation.withLock { $0.take() }?.resume()
      }
    }

    /// Starts waiting, then calls `start` (which makes the arrivals happen), and returns once
    /// every arrival has happened.
    func wait(after start: () -> Void) async {
      await withCheckedContinuation { continuation in
        self.continuation.withLock { $0 = continuation }
        if remaining.load(ordering: .acquiring) <= 0 {
          self.continuation.withLock { $0.take() }?.resume()
        }
        start()
      }
    }
  }

  /// A counter that escaping closures can share.
  final class Counter: Sendable {
    private let storage = Atomic(0)

    /// Creates a counter at zero.
    init() {}

    /// The current count.
    var value: Int { storage.load(ordering: .relaxed) }

    /// Adds one.
    func increment() {
      storage.add(1, ordering: .relaxed)
    }
  }

  /// A gate that tasks wait at until it opens, so many tasks can be released at once.
  final class StartGate: Sendable {
    /// Whether the gate is open, and who waits while it is closed.
    private struct State {
      var isOpen = false
      var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Creates a closed gate.
    init() {}

    /// How many tasks are waiting.
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Suspends until the gate opens (returns at once if it is open).
    func wait() async {
      await withCheckedContinuation { continuation in
        let isOpen = state.withLock { state in
          if !state.isOpen { state.waiters.append(continuation) }
          return state.isOpen
        }
        if isOpen { continuation.resume() }
      }
    }

    /// Opens the gate and resumes every waiting task.
    func open() {
      let waiters = state.withLock { state in
        state.isOpen = true
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in waiters { waiter.resume() }
    }
  }

  /// Polls `condition` every `interval` until it holds or `timeout` passes; returns whether
  /// it held. For untimed set-up and clean-up only.
  static func poll(
    every interval: Duration = .milliseconds(1),
    timeout: Duration = .seconds(30),
    until condition: () -> Bool
  ) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
      guard ContinuousClock.now < deadline else { return false }
      try? await Task.sleep(for: interval)
    }
    return true
  }

  /// Waits until `queue` holds no operations (untimed clean-up between runs).
  static func drain(_ queue: OperationQueue) async throws {
    guard await poll(until: { queue.operationCount == 0 }) else {
      throw BenchmarkError.timedOut("draining \(queue.name ?? "a queue")")
    }
  }

  /// Why a scenario could not run.
  enum BenchmarkError: Error, CustomStringConvertible {
    /// Set-up, clean-up or the measured work did not finish in time.
    case timedOut(String)
    /// The measured work failed.
    case failed(String)

    /// A one-line description.
    var description: String {
      switch self {
      case .timedOut(let what): "timed out \(what)"
      case .failed(let what): what
      }
    }
  }

  /// The resident set size of this process, read from `/proc/self/status` (Linux only).
  enum ProcessMemory {
    /// The current resident set size (`VmRSS`) in MiB; nil where `/proc` is unavailable.
    static var residentMiB: Double? { field("VmRSS") }

    /// The resident set size after handing free heap back (``returnFreeMemory()``): live
    /// memory, without pages the allocator keeps free (an arena a thread touched late, say).
    static var liveResidentMiB: Double? {
      _ = returnFreeMemory()
      return residentMiB
    }

    /// The peak resident set size (`VmHWM`, process-wide) in MiB; nil where unavailable.
    static var peakMiB: Double? { field("VmHWM") }

    /// Returns free heap memory to the system (`malloc_trim(0)`, glibc only), so the resident
    /// set size reflects live memory rather than what earlier work freed. Returns whether it
    /// could.
    static func returnFreeMemory() -> Bool {
      #if canImport(Glibc)
        // `malloc.h` is not part of the Glibc module: look the function up (RTLD_DEFAULT is 0).
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else {
          return false
        }
        typealias MallocTrim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        return true
      #else
        return false
      #endif
    }

    /// Resets `VmHWM` to the current resident set size (`/proc/self/clear_refs`, Linux 4.0+).
    /// Returns whether the kernel accepted it.
    static func resetPeak() -> Bool {
      guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else {
        return false
      }
      defer { try? handle.close() }
      do {
        try handle.write(contentsOf: Data("5".utf8))
        return true
      } catch {
        return false
      }
    }

    private static func field(_ name: String) -> Double? {
      guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)
      else { return nil }
      for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
        let parts = line.split { $0 == " " || $0 == "\t" }
        guard parts.count >= 2, let kibibytes = Double(parts[1]) else { return nil }
        return kibibytes / 1024
      }
      return nil
    }
  }
}
