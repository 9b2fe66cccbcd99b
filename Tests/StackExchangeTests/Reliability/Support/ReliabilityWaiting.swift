import AsyncBridge
import OperationCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Polls `condition` until it holds or `timeout` passes; returns its last value. Only for
/// facts with no event to wait on, such as memory being reclaimed.
func holdsEventually(
  within timeout: Duration = .seconds(30), _ condition: @Sendable () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    guard ContinuousClock.now < deadline else { return false }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}

/// Whether `manager` becomes idle within `timeout`, waiting with `waitUntilIdle()`.
func becomesIdle(_ manager: OperationQueueManager, within timeout: Duration = .seconds(30)) async
  -> Bool
{
  await within(timeout) { (try? await manager.waitUntilIdle()) != nil } ?? false
}

/// A weak reference tasks can share, to check that objects are released.
final class WeakReference<Object: AnyObject>: Sendable {
  private struct Storage {
    weak var object: Object?
  }

  // The reference lives in `storage`, guarded by its lock.
  private let storage: Locked<Storage>

  init(_ object: Object) {
    storage = Locked(Storage(object: object))
  }

  /// Whether the object has been released.
  var isReleased: Bool { storage.withLock { $0.object == nil } }
}

/// Counts a manager's lifecycle events, from `manager.makeEvents()`.
final class EventTally: Sendable {
  private let events = Locked<[OperationEvent]>([])
  private let pump: Task<Void, Never>

  /// Subscribes at once; events published from now on are counted.
  init(_ manager: OperationQueueManager) {
    let stream = manager.makeEvents()
    let events = events
    pump = Task {
      for await event in stream { events.withLock { $0.append(event) } }
    }
  }

  deinit {
    pump.cancel()
  }

  /// Every `finished` event so far.
  var finished: [OperationEvent] {
    events.withLock { $0.filter { if case .finished = $0.kind { true } else { false } } }
  }

  /// The operations that have an event of `kind`.
  func operationIDs(with kind: OperationEvent.Kind) -> Set<ObjectIdentifier> {
    events.withLock { Set($0.filter { $0.kind == kind }.map(\.operationID)) }
  }

  /// How many events of `kind` were counted.
  func count(_ kind: OperationEvent.Kind) -> Int {
    events.withLock { $0.filter { $0.kind == kind }.count }
  }
}

/// A small, seedable generator (SplitMix64), so a race's delays are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }
}

extension Result where Failure == any Error {
  /// Captures the outcome of an async throwing call.
  init(catching body: () async throws -> Success) async {
    do {
      self = .success(try await body())
    } catch {
      self = .failure(error)
    }
  }

  /// The failure as a `NetworkingError`, or nil.
  var networkingError: NetworkingError? {
    guard case .failure(let error) = self else { return nil }
    return error as? NetworkingError
  }
}
