import AsyncBridge
import LockedValue
import OperationCore
import OperationNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

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
