import AsyncBridge
import Dispatch
import Foundation
import OperationCore
import OperationNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The questions feature's boundary: "give me the latest questions", with a completion handler
/// or with `async`/`await`. Operations, queues and coalescing stay behind it.
///
/// ```swift
/// let questions = QuestionsDataManager(manager: OperationQueueManager(name: "questions"))
/// let page = try await questions.questions(QuestionsQuery(site: "stackoverflow", pageSize: 10))
/// questions.fetchQuestions(QuestionsQuery(site: "stackoverflow")) { result in … }
/// ```
///
/// **Coalescing.** Each call becomes a `/questions` request on the injected
/// `OperationQueueManager`. While one request is pending or executing, identical queries (the
/// same request URL) join it, whichever API they come through: N concurrent callers, async and
/// completion-handler mixed, cause one HTTP request and all receive its result. Data managers
/// sharing an `OperationQueueManager` share requests only if they also share the session, the
/// decoder and the request timeout: a call never joins a request limited, sent or decoded
/// differently from its own.
///
/// **Errors.** A call fails with ``QueryError`` when the query or the base URL is invalid,
/// ``BackoffError`` during a backoff (below), `NetworkingError` when the exchange fails
/// (transport, an empty or undecodable body, or a non-2xx status; for the API's JSON error body,
/// `badStatus` carries a ``StackExchangeAPIError``, also available as
/// `NetworkingError.stackExchangeAPIError`), `OperationTimeoutError` when the request took
/// longer than `requestTimeout`, and `CancellationError` when cancelled. Nothing is sent when
/// the call fails with ``QueryError`` or ``BackoffError``.
///
/// **Backoff: fail fast.** When a page carries `"backoff": N`, every call for `/questions` on that
/// site made within N seconds of its arrival fails at once with ``BackoffError``, whose
/// `retryAfter` is the time left, without sending a request: the API throttles clients that ignore
/// a backoff, so the decision to wait stays with the caller. Each caller records the backoff before
/// it receives the page, so its next call already sees it; callers that shared the request that
/// carried it all get the page. Each data manager keeps its own backoffs.
/// ``pages(_:maxPages:maxBackoffWait:)`` reads the same record but waits the backoff out instead of
/// failing.
public final class QuestionsDataManager: Sendable {
  /// The public StackExchange API, `https://api.stackexchange.com/2.3`.
  public static let stackExchangeAPI = URL(string: "https://api.stackexchange.com/2.3")!

  /// Where requests go: `<baseURL>/questions?site=…`.
  public let baseURL: URL
  /// The manager the requests are scheduled and coalesced on.
  let manager: OperationQueueManager
  let session: URLSession
  let decoder: JSONDecoder
  let requestTimeout: Duration?
  let backoffGate: BackoffGate

  /// Creates a data manager.
  ///
  /// - Parameters:
  ///   - manager: Schedules and coalesces the requests; its queue's limits, priorities and
  ///     cancel-all apply to them, and page backoffs run on its clock.
  ///   - baseURL: The API root; the request path is `<baseURL>/questions`. Defaults to
  ///     ``stackExchangeAPI``.
  ///   - session: Sends the requests. The default is a new ephemeral session without a URL
  ///     cache, as `NetworkingOperation` needs; pass one you reuse rather than one per call.
  ///   - decoder: Decodes pages and error bodies.
  ///   - requestTimeout: The longest one request may take, from the moment its operation starts
  ///     to the last byte; nil for no limit beyond the session's own timeout.
  public convenience init(
    manager: OperationQueueManager,
    baseURL: URL = stackExchangeAPI,
    session: URLSession = .makeNetworkingSession(),
    decoder: JSONDecoder = JSONDecoder(),
    requestTimeout: Duration? = .seconds(30)
  ) {
    self.init(
      manager: manager, baseURL: baseURL, session: session, decoder: decoder,
      requestTimeout: requestTimeout, backoffGate: nil)
  }

  /// Creates a data manager with an injected backoff gate; nil makes one on `manager`'s clock.
  init(
    manager: OperationQueueManager, baseURL: URL, session: URLSession, decoder: JSONDecoder,
    requestTimeout: Duration?, backoffGate: BackoffGate?
  ) {
    self.manager = manager
    self.baseURL = baseURL
    self.session = session
    self.decoder = decoder
    self.requestTimeout = requestTimeout
    self.backoffGate = backoffGate ?? BackoffGate(clock: manager.clock)
  }

  /// Fetches one page of questions and calls `completion` with it.
  ///
  /// Joins an identical request in flight instead of sending another one. A completion handler
  /// never gives up its interest: the request runs to its end (or until the manager's queue
  /// cancels it) even if every async caller sharing it was cancelled.
  ///
  /// - Parameters:
  ///   - query: What to fetch.
  ///   - callbackQueue: Where to call `onProgress` and `completion`; nil calls them on an
  ///     arbitrary thread.
  ///   - onProgress: Called with the request's progress (bytes of the page received, against
  ///     its announced length when the response is not compressed), shared with every caller
  ///     of the same request: serially, newest value first, never after `completion`. Nil (the
  ///     default) observes nothing.
  ///   - completion: Called exactly once, never before this method returns, with the page or
  ///     the error (see the type's documentation: ``QueryError``, ``BackoffError``,
  ///     `NetworkingError`, `OperationTimeoutError`, `CancellationError`).
  public func fetchQuestions(
    _ query: QuestionsQuery,
    callbackQueue: CallbackQueue? = nil,
    onProgress: (@Sendable (OperationProgress) -> Void)? = nil,
    completion: @escaping @Sendable (Result<QuestionsPage, any Error>) -> Void
  ) {
    let operation: FetchQuestionsOperation
    do {
      operation = try makeOperation(for: query)
    } catch {
      Self.deliver(.failure(error), on: callbackQueue, to: completion)
      return
    }
    let recording: @Sendable (Result<QuestionsPage, any Error>) -> Void = {
      [backoffGate] result in
      if case .success(let page) = result {
        backoffGate.record(backoff: page.backoff, site: query.site)
      }
      completion(result)
    }
    if let onProgress {
      manager.enqueue(
        operation, callbackQueue: callbackQueue, onProgress: onProgress, completion: recording)
    } else {
      manager.enqueue(operation, callbackQueue: callbackQueue, completion: recording)
    }
  }

  /// The operation for `query`, or why no request may be sent.
  ///
  /// - Throws: ``QueryError`` or ``BackoffError``.
  func makeOperation(for query: QuestionsQuery) throws -> FetchQuestionsOperation {
    let operation = try FetchQuestionsOperation(
      query: query, baseURL: baseURL, session: session, decoder: decoder,
      timeout: requestTimeout)
    try backoffGate.checkCall(site: query.site)
    return operation
  }

  /// Calls `completion` with a failure found before any operation existed, asynchronously.
  private static func deliver(
    _ result: Result<QuestionsPage, any Error>, on callbackQueue: CallbackQueue?,
    to completion: @escaping @Sendable (Result<QuestionsPage, any Error>) -> Void
  ) {
    (callbackQueue ?? .dispatch(.global())).execute { completion(result) }
  }
}
