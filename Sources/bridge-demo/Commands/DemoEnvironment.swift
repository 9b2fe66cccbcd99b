import AsyncBridge
import Foundation
import OperationCore
import OperationNetworking
import StackExchange

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a command works with: the embedded server (unless `--base-url` was given), one queue
/// manager, one URL session and the data manager on top of them.
struct DemoEnvironment {
  /// How long a request may go without receiving data: the session's timeout.
  static let idleTimeout: Duration = .seconds(15)
  /// The longest one request may take, from the start of its operation to the last byte.
  static let requestTimeout: Duration = .seconds(30)

  /// The session every request of the process goes through: made once, never invalidated.
  private static let session = URLSession.makeNetworkingSession(timeout: idleTimeout)

  /// The embedded server; nil when requests go to a `--base-url`.
  let server: EmbeddedServer?
  /// Where requests go.
  let baseURL: URL
  /// The manager the data manager's operations run on.
  let manager: OperationQueueManager
  /// The feature under demonstration.
  let questions: QuestionsDataManager

  /// An environment for `baseURL` (nil: a newly started embedded server), or nil after
  /// reporting on stderr why the embedded server could not start.
  static func start(baseURL: URL?) -> DemoEnvironment? {
    do {
      return try DemoEnvironment(baseURL: baseURL)
    } catch {
      Console.error(error)
      return nil
    }
  }

  /// An environment for `baseURL`, or for a newly started embedded server when it is nil.
  ///
  /// - Throws: `FixtureServerError` when the embedded server cannot start.
  init(baseURL: URL?) throws {
    if let baseURL {
      server = nil
      self.baseURL = baseURL
    } else {
      let server = try EmbeddedServer()
      self.server = server
      self.baseURL = server.baseURL
    }
    manager = OperationQueueManager(name: "bridge-demo", maxConcurrentOperationCount: 4)
    questions = QuestionsDataManager(
      manager: manager, baseURL: self.baseURL, session: Self.session,
      requestTimeout: Self.requestTimeout)
  }

  /// The data task running now for the in-flight request with coalescing `key` (the key an
  /// `enqueued` event carries), found through the manager's O(1) in-flight index.
  ///
  /// Read from the operation, not from `URLSession.getAllTasks`, which on corelibs (6.3.1)
  /// races with tasks starting or ending and can crash.
  func runningDataTask(for key: CoalescingKey) -> URLSessionDataTask? {
    (manager.inFlightOperation(for: key) as? NetworkingOperation<QuestionsPage>)?.runningDataTask
  }

  /// The request URL of `query`, for progress lines.
  func requestURL(_ query: QuestionsQuery) -> String {
    (try? query.url(baseURL: baseURL).absoluteString) ?? baseURL.absoluteString
  }
}

extension DemoEnvironment {
  /// Waits until every one of `tasks` has completed.
  ///
  /// - Returns: false if one had not after `timeout`.
  func waitUntilCompleted(_ tasks: [URLSessionDataTask], timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while tasks.contains(where: { $0.state != .completed }) {
      guard ContinuousClock.now < deadline else { return false }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return true
  }

  /// Waits, without blocking a thread, until every operation of the manager has finished.
  ///
  /// - Returns: false if some had not finished after `timeout`.
  func waitUntilIdle(timeout: Duration) async -> Bool {
    let manager = manager
    return await withTaskGroup(of: Bool.self) { group in
      group.addTask { (try? await manager.waitUntilIdle()) != nil }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
  }
}
