import Dispatch
import Foundation
import LockedValue
import OperationCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Cancels data tasks off the cancelling thread. Serial on purpose: `URLSessionTask.cancel()`
/// waits on one process-wide queue in swift-corelibs-foundation, so a concurrent queue would
/// only pile up blocked threads.
let dataTaskCancellationQueue = DispatchQueue(
  label: "OperationNetworking.NetworkingOperation.cancel")

/// An operation that performs one HTTP request and decodes its JSON body.
///
/// It sends `request` with an injected `URLSession` (one `dataTask(with:completionHandler:)`;
/// `URLSession.data(for:)` deadlocks with task cancellation on Linux 6.3.1), accepts only 2xx
/// statuses, and decodes the body as `Value` with an injected `JSONDecoder`. Its own failures
/// are always ``NetworkingError``s; cancellation is reported as `CancellationError` and an
/// expired `ConcurrentOperation.timeout` as `OperationTimeoutError`, which is why `Failure`
/// is `any Error`.
///
/// ```swift
/// let session = URLSession.makeNetworkingSession(timeout: .seconds(15))
/// let fetch = NetworkingOperation<QuestionsPage>(
///   request: URLRequest(url: url), session: session, serverErrorType: APIError.self)
/// manager.enqueue(fetch) { result in … }  // an identical GET enqueued meanwhile joins it
/// ```
///
/// **Cancellation.** Cancelling (or a timeout) resumes every waiter at once, releases the queue
/// slot and cancels the data task. The task is cancelled on a private serial queue, never on
/// the cancelling thread (which may be a task's cancellation handler) and never under a lock.
/// Cancelling before the task exists still cancels it once `main()` creates it; cancelling
/// before the queue starts the operation sends no request at all. The data task's own
/// `URLError.cancelled` is then ignored. A data task cancelled by someone else (say, by
/// invalidating the session) fails the operation with ``NetworkingError/transport(_:)``. A
/// subclass whose `ConcurrentOperation.finishesImmediatelyWhenCancelled` is false keeps its
/// queue slot until the data task has actually stopped (its waiters are still resumed at once).
///
/// **The session.** Reuse one session for many operations; the operation never invalidates it.
/// Give it `configuration.urlCache = nil`: in swift-corelibs-foundation 6.3.1, cancelling a
/// task racing a failing connection can crash a session that has a URL cache.
/// ``makeSession(timeout:)`` makes a suitable one. The response is decoded on a global queue,
/// not on the session's delegate queue, so one slow decode never holds up other requests.
///
/// **Retries.** With a ``RetryPolicy`` other than ``RetryPolicy/none`` (the default), a failed
/// attempt the policy deems transient is sent again after a wait, inside this one operation:
/// every waiter that joined it shares the attempts, and sees only the final outcome (the last
/// attempt's failure when none succeeded). Each retry is announced first as an
/// `OperationEvent` `retrying(attempt:delay:failure:)`. The wait holds no thread; cancelling,
/// the last waiter leaving or the operation's `ConcurrentOperation.timeout` ends it at once,
/// and no further request is sent.
///
/// **Progress.** Through a session that
/// `URLSession.makeNetworkingSession(timeout:maximumConnectionsPerHost:)` made, the operation
/// reports the bytes of the body received so far against the length the response announced
/// (`ConcurrentOperation.reportProgress(completed:total:)`), at the response's head and after
/// every chunk, for every attempt: callers passing `onProgress` see it, coalesced callers
/// alike. The total is unknown when the response announces no length, or a compressed
/// encoding (the announced length is then the compressed one). Progress never goes backwards,
/// so a retry shows only once it passes the earlier attempt. Through any other session the
/// body arrives whole, and nothing is reported.
///
/// **Size.** A response larger than `maxResponseBytes` fails with
/// ``NetworkingError/responseTooLarge(byteCount:limit:)``. Through a session that
/// `URLSession.makeNetworkingSession(timeout:maximumConnectionsPerHost:)` made, the body arrives
/// chunk by chunk and is stopped (its data task cancelled) at the first chunk past the limit, or at
/// the response's head when the announced `Content-Length` is over it, before any of the body:
/// `byteCount` is then the announced length, else the bytes received. A body that never ends fails
/// this way too, instead of filling memory until a timeout. Through any other session the data task
/// has a completion handler, and URLSession buffers the whole body before the limit is checked: the
/// limit then bounds what is decoded, not what is downloaded.
open class NetworkingOperation<Value: Decodable & Sendable>: ConcurrentOperation<Value, any Error>,
  @unchecked Sendable
{
  // State lives in `dataTask`, guarded by its lock; the other stored properties are immutable.
  private let dataTask = Locked(DataTaskStateMachine<URLSessionDataTask, any RetryWait>())
  private let exchange: Exchange

  /// The request the operation sends.
  public var request: URLRequest { exchange.request }
  /// The session the request goes through; shared, never invalidated by the operation.
  public var session: URLSession { exchange.session }
  /// The largest response body, in bytes, the operation accepts.
  public var maxResponseBytes: Int { exchange.validation.maxResponseBytes }
  /// When a failed attempt is sent again, and after how long.
  public var retryPolicy: RetryPolicy { exchange.retryPolicy }

  /// What the operation sends and how it treats the answers: fixed when it is created.
  private struct Exchange: Sendable {
    let request: URLRequest
    let session: URLSession
    let retryPolicy: RetryPolicy
    let validation: HTTPResponseValidation

    init(
      request: URLRequest, session: URLSession, decoder: JSONDecoder, maxResponseBytes: Int,
      serverErrorType: (any ServerErrorBody.Type)?, retryPolicy: RetryPolicy
    ) {
      self.request = Self.honouringTimeout(request)
      self.session = session
      self.retryPolicy = retryPolicy
      validation = HTTPResponseValidation(
        decoder: decoder, maxResponseBytes: max(0, maxResponseBytes),
        serverErrorType: serverErrorType)
    }

    /// `request` with a fractional timeout rounded up where the platform ignores fractions.
    private static func honouringTimeout(_ request: URLRequest) -> URLRequest {
      let honoured = URLSession.honouredTimeoutInterval(request.timeoutInterval)
      guard honoured != request.timeoutInterval else { return request }
      var request = request
      request.timeoutInterval = honoured
      return request
    }
  }

  /// Creates an operation that sends `request` once its queue starts it.
  ///
  /// - Parameters:
  ///   - request: The request to send. Its `timeoutInterval`, if set, overrides the session's
  ///     request timeout; on Linux a fraction of a second is rounded up (see
  ///     `URLSession.makeNetworkingSession(timeout:maximumConnectionsPerHost:)`).
  ///   - session: The session to use, reused across operations; see ``makeSession(timeout:)``.
  ///   - decoder: Decodes the body, and the server error body.
  ///   - maxResponseBytes: The largest body accepted; 10 MiB by default. Below zero counts
  ///     as zero.
  ///   - serverErrorType: The error body the server sends with failing statuses; when a non-2xx
  ///     body decodes as this type,
  ///     ``NetworkingError/badStatus(statusCode:serverError:bodyExcerpt:)`` carries it.
  ///   - retryPolicy: Which failed attempts to send again, and when; none by default.
  ///   - coalescing: Which operations join this one; by default identical `GET`/`HEAD`
  ///     requests (see ``RequestCoalescing/automatic``).
  public init(
    request: URLRequest,
    session: URLSession,
    decoder: JSONDecoder = JSONDecoder(),
    maxResponseBytes: Int = 10 * 1024 * 1024,
    serverErrorType: (any ServerErrorBody.Type)? = nil,
    retryPolicy: RetryPolicy = .none,
    coalescing: RequestCoalescing = .automatic
  ) {
    exchange = Exchange(
      request: request, session: session, decoder: decoder, maxResponseBytes: maxResponseBytes,
      serverErrorType: serverErrorType, retryPolicy: retryPolicy)
    if let key = coalescing.key(for: request) {
      super.init(coalescingKey: key)
    } else {
      super.init()
    }
  }

  /// Creates an operation that sends `request` and that in-flight operations of the same class
  /// and value type with an equal `coalescingKey` join, whatever the request's method.
  ///
  /// - Parameters:
  ///   - request: The request to send (its timeout treated as in the other initializer).
  ///   - session: The session to use, reused across operations; see ``makeSession(timeout:)``.
  ///   - decoder: Decodes the body, and the server error body.
  ///   - maxResponseBytes: The largest body accepted; 10 MiB by default. Below zero counts
  ///     as zero.
  ///   - serverErrorType: The error body the server sends with failing statuses.
  ///   - retryPolicy: Which failed attempts to send again, and when; none by default.
  ///   - coalescingKey: The key identical work shares; pass the `URLRequest` itself to join
  ///     requests equal in every property (including its timeout and cache policy).
  public init(
    request: URLRequest,
    session: URLSession,
    decoder: JSONDecoder = JSONDecoder(),
    maxResponseBytes: Int = 10 * 1024 * 1024,
    serverErrorType: (any ServerErrorBody.Type)? = nil,
    retryPolicy: RetryPolicy = .none,
    coalescingKey: some Hashable & Sendable
  ) {
    exchange = Exchange(
      request: request, session: session, decoder: decoder, maxResponseBytes: maxResponseBytes,
      serverErrorType: serverErrorType, retryPolicy: retryPolicy)
    super.init(coalescingKey: coalescingKey)
  }

  /// Makes a session suited to networking operations; the same as
  /// `URLSession.makeNetworkingSession(timeout:maximumConnectionsPerHost:)`.
  ///
  /// - Parameter timeout: How long a request may wait for data before it fails with
  ///   `URLError.timedOut` (whole seconds on Linux, rounded up).
  /// - Returns: An ephemeral session without a URL cache; create one and reuse it.
  public static func makeSession(timeout: Duration = .seconds(30)) -> URLSession {
    URLSession.makeNetworkingSession(timeout: timeout)
  }

  /// Creates and resumes the data task. Called by the queue through `start()`.
  public final override func main() {
    switch dataTask.withLock({ $0.startRequested() }) {
    case .createTask: sendAttempt(1)
    case .finishCancelled: finish(throwing: CancellationError())
    case .ignore: return
    }
  }

  /// Cancels the data task, on a private serial queue and outside the lock, or arranges for
  /// `main()` to cancel it if it does not exist yet; ends a wait between attempts at once.
  /// Called by `ConcurrentOperation.cancel()` and on timeout.
  public final override func operationWasCancelled() {
    switch dataTask.withLock({ $0.cancel() }) {
    case .none:
      return
    case .cancelTask(let task):
      dataTaskCancellationQueue.async { task.cancel() }
    case .cancelWait(let wait):
      wait.cancel()
      // Nothing else will end the work: release the slot if the operation kept it.
      finish(throwing: CancellationError())
    }
  }

  /// The data task while it runs: created, and neither completed nor cancelled yet.
  ///
  /// For diagnostics and tests, which cannot ask the session instead: on corelibs (6.3.1)
  /// `URLSession.getAllTasks` reads the session's task list off the queue that guards it, a
  /// race that can crash while other tasks start or end.
  package var runningDataTask: URLSessionDataTask? {
    dataTask.withLock { machine in
      guard case .running(let task, _) = machine.state else { return nil }
      return task
    }
  }

  /// Creates and resumes the data task of `attempt`.
  private func sendAttempt(_ attempt: Int) {
    let task = makeDataTask { [self] data, response, error in
      dataTaskDidComplete(data: data, response: response, error: error)
    }
    switch dataTask.withLock({ $0.taskCreated(task, attempt: attempt) }) {
    case .resume: task.resume()
    case .cancel: dataTaskCancellationQueue.async { task.cancel() }
    case .none: break
    }
  }

  /// A data task for the request whose end goes to `completion`: through the session's delegate
  /// when the session is one `URLSession.makeNetworkingSession(timeout:maximumConnectionsPerHost:)`
  /// made, so a body past ``maxResponseBytes`` is stopped as it arrives; with a completion handler
  /// otherwise, which buffers the whole body before the limit is checked.
  private func makeDataTask(
    completion: @escaping NetworkingSessionDelegate.Completion
  ) -> URLSessionDataTask {
    guard let receiver = session.delegate as? NetworkingSessionDelegate else {
      return session.dataTask(with: request, completionHandler: completion)
    }
    let task = session.dataTask(with: request)
    receiver.receive(
      task, limit: maxResponseBytes,
      progress: { [weak self] received, expected in
        self?.reportProgress(completed: received, total: expected)
      }, completion: completion)
    return task
  }

  private func dataTaskDidComplete(data: Data?, response: URLResponse?, error: (any Error)?) {
    let attempt: Int
    switch dataTask.withLock({ $0.taskCompleted() }) {
    case .process(let processed): attempt = processed
    case .finishCancelled: return finish(throwing: CancellationError())
    case .ignore: return
    }
    if let exceeded = error as? NetworkingSessionDelegate.BodyLimitExceeded {
      let failure = NetworkingError.responseTooLarge(
        byteCount: exceeded.byteCount, limit: maxResponseBytes)
      attemptFailed(attempt, failure, serverMinimum: nil)
      return
    }
    if let error {
      attemptFailed(attempt, HTTPResponseValidation.transportFailure(error), serverMinimum: nil)
      return
    }
    let validation = exchange.validation
    DispatchQueue.global().async { [self] in
      switch validation.decode(Value.self, data: data, response: response) {
      case .success(let value):
        finish(returning: value)
      case .failure(let failure):
        let serverMinimum = ServerRetryDelay.requested(
          by: response, body: data, bodyDelay: retryPolicy.serverRequestedDelay)
        attemptFailed(attempt, failure, serverMinimum: serverMinimum)
      }
    }
  }

  /// Delivers `failure`, or, if the policy retries it, announces the retry and starts the wait
  /// before the next attempt.
  private func attemptFailed(_ attempt: Int, _ failure: NetworkingError, serverMinimum: Duration?) {
    guard
      let delay = retryPolicy.delay(
        afterAttempt: attempt, failure: failure, serverMinimum: serverMinimum)
    else { return finish(throwing: failure) }
    let waits = retryPolicy.waitSource ?? scheduler
    let wait = waits.makeWait(for: delay) { [weak self] in self?.waitEnded() }
    switch dataTask.withLock({ $0.retryScheduled(wait) }) {
    case .start:
      // Announced before the wait starts, so `retrying` precedes whatever the next attempt
      // brings. A cancellation meanwhile has cancelled the wait, and settled: then nothing is
      // announced and the wait never starts.
      reportRetry(attempt: attempt, delay: delay, failure: failure)
      wait.start()
    case .discardAndFinishCancelled:
      wait.cancel()
      finish(throwing: CancellationError())
    }
  }

  /// The wait between attempts ended: sends the next attempt, unless cancelled meanwhile.
  private func waitEnded() {
    switch dataTask.withLock({ $0.waitEnded() }) {
    case .createTask(let attempt): sendAttempt(attempt)
    case .ignore: return
    }
  }
}
