import AsyncBridge
import OperationCore

extension Benchmark {
  /// One way of asking for a shared piece of work, as the coalescing scenarios compare them.
  enum Caller: String, Sendable {
    /// `manager.run(key:_:)`.
    case run
    /// `manager.perform(_:)` of a keyed `AsyncOperation` (joiners allocate one and drop it).
    case perform
    /// An actor singleflight (``ActorSingleflight``).
    case actor
    /// A `Mutex` singleflight (``MutexSingleflight``).
    case mutex
    /// A `Mutex` singleflight whose callers can each leave on cancellation
    /// (``LeavingSingleflight``).
    case leaving
    /// No sharing: each caller awaits the work itself (with a gate's wait as the work, a bare
    /// checked continuation).
    case continuation

    /// A request for `body`'s value under `key`, made the way this caller makes it. The
    /// singleflights are created here, one per request closure.
    func request(
      key: String, manager: OperationQueueManager,
      body: @escaping @Sendable () async throws -> Int
    ) -> @Sendable () async throws -> Int {
      switch self {
      case .run:
        return { try await manager.run(key: key, body) }
      case .perform:
        return { try await manager.perform(AsyncOperation(coalescingKey: key, body)) }
      case .actor:
        let singleflight = ActorSingleflight()
        return { try await singleflight.value(for: key, body) }
      case .mutex:
        let singleflight = MutexSingleflight()
        return { try await singleflight.value(for: key, body) }
      case .leaving:
        let singleflight = LeavingSingleflight()
        return { try await singleflight.value(for: key, body) }
      case .continuation:
        return body
      }
    }
  }
}
