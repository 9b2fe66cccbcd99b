import LockedValue
import OperationCore
import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One completion handler of a stress round: every call it received, which operation the
/// enqueue returned, and whether the outcome was handed over at once, inside the enqueue
/// call (the operation had settled already), rather than by the operation settling later.
///
/// Only the second kind is counted in the operation's `finished` event, so telling them apart
/// matters. A handler without a callback queue that runs on the enqueuing thread before the
/// enqueue call returned was called at once: a settle cannot run on a thread that is busy
/// inside `enqueue`. (With a callback queue the two cannot be told apart, so the round uses
/// callback queues only where an at-once delivery is impossible: new, unshared operations.)
final class StressHandler: Sendable {
  /// How the operation was handed to the manager.
  enum Origin: Sendable, Equatable {
    /// A new operation: fresh work, or a join of an identical one in flight.
    case new
    /// An operation the queue already had, enqueued again.
    case again
    /// A new operation enqueued from two threads at once.
    case twoThreads
  }

  private struct State {
    var results: [Result<Int, any Error>] = []
    var enqueuingThread: pthread_t?
    var enqueueReturned = false
    var deliveredAtOnce = false
    var workingSerial: Int?
  }

  let origin: Origin
  /// The serial of the operation passed to `enqueue`.
  let ownSerial: Int
  let usesCallbackQueue: Bool
  private let state = Locked(State())
  private let calls: AsyncCounter

  init(origin: Origin, ownSerial: Int, usesCallbackQueue: Bool, calls: AsyncCounter) {
    self.origin = origin
    self.ownSerial = ownSerial
    self.usesCallbackQueue = usesCallbackQueue
    self.calls = calls
  }

  /// Every result the handler received, in order.
  var results: [Result<Int, any Error>] { state.withLock { $0.results } }
  /// Whether the outcome was handed over inside the enqueue call.
  var wasDeliveredAtOnce: Bool { state.withLock { $0.deliveredAtOnce } }
  /// The serial of the operation `enqueue` returned: the one doing the work.
  var workingSerial: Int? { state.withLock { $0.workingSerial } }

  /// Call right before `enqueue`, on the enqueuing thread.
  func willEnqueue() {
    let thread = pthread_self()
    state.withLock {
      $0.enqueuingThread = thread
      $0.enqueueReturned = false
    }
  }

  /// Call right after `enqueue` returned `working`.
  func didEnqueue(working serial: Int?) {
    state.withLock {
      $0.enqueueReturned = true
      $0.workingSerial = serial
    }
  }

  /// The completion handler.
  func deliver(_ result: Result<Int, any Error>) {
    let thread = pthread_self()
    state.withLock { state in
      state.results.append(result)
      if !state.enqueueReturned, let enqueuing = state.enqueuingThread,
        pthread_equal(enqueuing, thread) != 0
      {
        state.deliveredAtOnce = true
      }
    }
    calls.increment()
  }
}

/// One task of a stress round awaiting `manager.perform` of a new operation.
final class StressAwaiter: Sendable {
  /// The key of the operation it performs.
  let key: Int?
  /// The serial of the operation it performs (the one doing the work may be another, joined).
  let ownSerial: Int
  /// The task and what it got.
  let task = StressTask<Int>()

  init(key: Int?, ownSerial: Int) {
    self.key = key
    self.ownSerial = ownSerial
  }
}

/// One task of a stress round awaiting `manager.waitUntilIdle()`.
typealias StressIdleWait = StressTask<Void>

/// A task of a stress round that awaits something, and what it got.
final class StressTask<Value: Sendable>: Sendable {
  private struct State {
    var task: Task<Void, Never>?
    var cancelledByTest = false
    var result: Result<Value, any Error>?
    var completions = 0
  }

  private let state = Locked(State())

  /// What the awaited call returned or threw; nil until it did.
  var result: Result<Value, any Error>? { state.withLock { $0.result } }
  /// How many times the awaited call returned or threw.
  var completions: Int { state.withLock { $0.completions } }
  /// Whether the test cancelled the task (set before it is cancelled).
  var wasCancelledByTest: Bool { state.withLock { $0.cancelledByTest } }

  /// Starts the task: it awaits `body`, records the result, then counts itself in `done`.
  func start(counting done: AsyncCounter, _ body: @escaping @Sendable () async throws -> Value) {
    let task = Task {
      let result: Result<Value, any Error>
      do {
        result = .success(try await body())
      } catch {
        result = .failure(error)
      }
      state.withLock {
        $0.result = result
        $0.completions += 1
      }
      done.increment()
    }
    state.withLock { $0.task = task }
  }

  /// Marks the task cancelled, then cancels it.
  func cancel() {
    let task = state.withLock { state -> Task<Void, Never>? in
      state.cancelledByTest = true
      return state.task
    }
    task?.cancel()
  }
}
