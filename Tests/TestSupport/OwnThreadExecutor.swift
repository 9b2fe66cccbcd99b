import Foundation
import LockedValue

/// A task executor with one thread of its own, for a task whose synchronous code blocks on
/// purpose (a hook that holds an admission until the test releases it):
/// `Task(executorPreference: executor) { … }`.
///
/// Tasks otherwise share the concurrency pool's threads, one per core: on a two-core machine,
/// two tests that each block one of them stop every other test's tasks, their own releases
/// included, until a timeout frees a thread.
public final class OwnThreadExecutor: TaskExecutor, Sendable {
  private let jobs = Locked<[UnownedJob]>([])
  private let available = DispatchSemaphore(value: 0)

  /// Starts the thread. It runs the jobs of every task that prefers this executor, and ends
  /// once the executor is released (a task holds it until the task ends).
  public init() {
    Thread.detachNewThread { [jobs, available, weak self] in
      while true {
        available.wait()
        guard let executor = self else { return }
        guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
        job.runSynchronously(on: executor.asUnownedTaskExecutor())
      }
    }
  }

  deinit {
    available.signal()
  }

  /// Queues `job` for the thread.
  public func enqueue(_ job: UnownedJob) {
    jobs.withLock { $0.append(job) }
    available.signal()
  }
}
