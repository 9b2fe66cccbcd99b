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
        // Inserted before the lock is released, so the task's removal comes after it.
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
