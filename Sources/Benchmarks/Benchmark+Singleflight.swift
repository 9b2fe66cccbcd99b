import LockedValue
import OperationCore
import Synchronization

extension Benchmark {
  /// In-flight de-duplication as commonly written with an actor: a dictionary of `Task`
  /// handles. The first caller for a key starts the task; later callers await its value; the
  /// first caller removes the entry when the task is done.
  actor ActorSingleflight {
    private var tasks: [String: Task<Int, any Error>] = [:]

    /// Creates an empty singleflight.
    init() {}

    /// Returns the value of the in-flight work for `key`, starting `work` if there is none.
    func value(
      for key: String, _ work: @escaping @Sendable () async throws -> Int
    ) async throws -> Int {
      if let task = tasks[key] { return try await task.value }
      let task = Task { try await work() }
      tasks[key] = task
      defer { tasks[key] = nil }
      return try await task.value
    }
  }

  /// In-flight de-duplication with a `Mutex` around the dictionary of `Task` handles, so a
  /// caller needs no actor hop: the task removes its own entry when its work ends.
  final class MutexSingleflight: Sendable {
    private let tasks = Mutex<[String: Task<Int, any Error>]>([:])

    /// Creates an empty singleflight.
    init() {}

    /// Returns the value of the in-flight work for `key`, starting `work` if there is none.
    func value(
      for key: String, _ work: @escaping @Sendable () async throws -> Int
    ) async throws -> Int {
      let task = tasks.withLock { tasks in
        if let task = tasks[key] { return task }
        // Inserted before the lock is unlocked, so the task's removal comes after it.
        let task = Task {
          defer { self.tasks.withLock { $0[key] = nil } }
          return try await work()
        }
        tasks[key] = task
        return task
      }
      return try await task.value
    }
  }
}

extension Benchmark {
  /// In-flight de-duplication whose callers can each leave, as a user writes it when a
  /// cancelled caller must be let go at once (as `manager.run(key:_:)` lets it go): every
  /// caller waits on its own checked continuation, kept with the shared task in a locked
  /// dictionary, under a task cancellation handler. A leaving caller is resumed with
  /// `CancellationError`; the last one to leave cancels the shared task and takes its flight
  /// out, so a later caller starts afresh rather than joining cancelled work.
  ///
  /// The lock is a pthread mutex (the library's `Locked`), not `Mutex`: this baseline has its
  /// own tests, which run under ThreadSanitizer, and on Linux ThreadSanitizer does not see
  /// `Mutex`'s hand-off and reports races inside it that cannot happen.
  ///
  /// ``MutexSingleflight`` is cheaper because its callers cannot leave: `Task.value` returns
  /// only when the shared work ends, whatever happens to the caller.
  final class LeavingSingleflight: Sendable {
    private struct Flight {
      /// The identity of the caller that started it: a finished task takes out only its own
      /// flight, not a later one for the same key.
      let id: UInt64
      let task: Task<Void, Never>
      var waiters: [UInt64: CheckedContinuation<Int, any Error>]
    }

    private let flights = Locked([String: Flight]())
    private let nextID = Atomic<UInt64>(0)

    /// Creates an empty singleflight.
    init() {}

    /// Returns the value of the in-flight work for `key`, starting `work` if there is none.
    /// Cancelling the calling task throws `CancellationError` at once.
    func value(
      for key: String, _ work: @escaping @Sendable () async throws -> Int
    ) async throws -> Int {
      let id = nextID.add(1, ordering: .relaxed).newValue
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          // Under the lock, so a cancellation handler that already ran (and found nothing to
          // remove) is seen here.
          let admitted = flights.withLock { flights in
            if Task.isCancelled { return false }
            if flights[key] != nil {
              flights[key]?.waiters[id] = continuation
            } else {
              flights[key] = Flight(
                id: id, task: start(key, id: id, work), waiters: [id: continuation])
            }
            return true
          }
          if !admitted { continuation.resume(throwing: CancellationError()) }
        }
      } onCancel: {
        let (waiter, orphaned) = flights.withLock {
          flights -> (CheckedContinuation<Int, any Error>?, Task<Void, Never>?) in
          guard let waiter = flights[key]?.waiters.removeValue(forKey: id) else {
            return (nil, nil)
          }
          guard flights[key]?.waiters.isEmpty == true else { return (waiter, nil) }
          return (waiter, flights.removeValue(forKey: key)?.task)
        }
        waiter?.resume(throwing: CancellationError())
        orphaned?.cancel()
      }
    }

    /// How many callers wait for `key`'s work now.
    func callerCount(for key: String) -> Int {
      flights.withLock { $0[key]?.waiters.count ?? 0 }
    }

    /// Starts the shared task for `key`'s flight `id`: it runs `work`, then takes its flight
    /// out (unless the last caller took it out before) and resumes every caller still waiting.
    private func start(
      _ key: String, id: UInt64, _ work: @escaping @Sendable () async throws -> Int
    ) -> Task<Void, Never> {
      Task {
        let result: Result<Int, any Error>
        do { result = .success(try await work()) } catch { result = .failure(error) }
        let waiters = flights.withLock { flights in
          flights[key]?.id == id ? flights.removeValue(forKey: key)?.waiters ?? [:] : [:]
        }
        for waiter in waiters.values { waiter.resume(with: result) }
      }
    }
  }
}
