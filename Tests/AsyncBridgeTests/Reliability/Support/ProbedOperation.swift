import Dispatch
import LockedValue
import OperationCore
import TestSupport

/// A test operation that records what its queue did to it: whether the queue ever started it
/// (see ``QueueThreadMarker``), how often `main()` ran and on which threads.
///
/// Its value is its serial number and its name is `P<serial>`, so every outcome a waiter receives
/// (value, `TestFailure.broken(serial)`, `OperationTimeoutError`) names the operation it came from.
final class ProbedOperation: ConcurrentOperation<Int, any Error>, @unchecked Sendable {
  /// How the operation ends once its queue starts it.
  enum Ending: Sendable, Equatable {
    /// In `main()`, on the queue's thread.
    case inMain
    /// From a global queue after a short delay.
    case soon(microseconds: Int)
    /// When the test calls ``release()``.
    case whenReleased
    /// Never on its own: a jammed operation, ended only by a timeout, a cancel or an outside
    /// `finish`.
    case never
  }

  /// What the queue did to the operation, as seen from its getters and `main()`.
  struct Probe: Sendable {
    /// A getter ran on the queue's own thread: the queue started the operation.
    var startedByQueue = false
    var mainCalls = 0
    /// `main()` calls that did not come from the operation's queue.
    var mainCallsOffQueue = 0
  }

  // `probe` is guarded by its lock; everything else is immutable after init.
  let serial: Int
  let key: Int?
  let ending: Ending
  let fails: Bool
  private let marker: QueueThreadMarker
  private let probeState = Locked(Probe())

  init(
    serial: Int, key: Int?, ending: Ending, fails: Bool, timeout: Duration?,
    marker: QueueThreadMarker
  ) {
    self.serial = serial
    self.key = key
    self.ending = ending
    self.fails = fails
    self.marker = marker
    if let key {
      super.init(coalescingKey: key)
    } else {
      super.init()
    }
    name = Self.name(of: serial)
    self.timeout = timeout
  }

  /// The name of the operation with `serial`.
  static func name(of serial: Int) -> String { "P\(serial)" }

  /// The serial number in a name made by ``name(of:)``.
  static func serial(inName name: String?) -> Int? {
    guard let name, name.first == "P" else { return nil }
    return Int(name.dropFirst())
  }

  /// What the queue did to the operation so far.
  var probe: Probe { probeState.withLock { $0 } }

  override var isExecuting: Bool {
    noteQueueThread()
    return super.isExecuting
  }

  override var isFinished: Bool {
    noteQueueThread()
    return super.isFinished
  }

  override func main() {
    let onQueue = marker.isCurrent
    probeState.withLock { probe in
      probe.mainCalls += 1
      if !onQueue { probe.mainCallsOffQueue += 1 }
    }
    switch ending {
    case .inMain:
      release()
    case .soon(let microseconds):
      DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(microseconds)) {
        [self] in release()
      }
    case .whenReleased, .never:
      break
    }
  }

  /// Finishes with the planned outcome: the serial number, or `TestFailure.broken(serial)`.
  func release() {
    if fails {
      finish(throwing: TestFailure.broken(serial))
    } else {
      finish(returning: serial)
    }
  }

  private func noteQueueThread() {
    guard marker.isCurrent else { return }
    probeState.withLock { $0.startedByQueue = true }
  }
}
