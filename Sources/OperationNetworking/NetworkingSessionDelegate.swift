import Foundation
import LockedValue
import OperationCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The delegate of the sessions
/// `URLSession.makeNetworkingSession(timeout:maximumConnectionsPerHost:)` makes: networking
/// operations receive their bodies through it, so a body that grows past the operation's
/// `maxResponseBytes` is stopped as it arrives instead of being buffered whole.
///
/// On swift-corelibs-foundation 6.3.1 a data task created with a completion handler buffers its
/// whole body and shows nothing of its progress until it ends (`countOfBytesReceived` stays 0;
/// per-task delegates are ignored): a body that never ends grows until the request times out
/// (docs/PLATFORM-NOTES.md). A task created without one hands its body to the
/// session's delegate chunk by chunk, on the session's delegate queue.
///
/// Tasks this delegate was not told about (created on the session by other code) are ignored.
final class NetworkingSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // An `NSObject` subclass cannot be checked: all mutable state lives in `receptions`, guarded
  // by its lock.

  /// Where a data task's end goes: its body (nil after an error), its response, and its error
  /// (``BodyLimitExceeded`` when the body passed the limit).
  typealias Completion = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

  /// Where a data task's progress goes: the body's bytes received so far, and the length its
  /// response announced (nil when unknown, or when the body arrives decoded from a compressed
  /// encoding, whose announced length is the compressed one).
  typealias ProgressReport = @Sendable (_ received: Int64, _ expected: Int64?) -> Void

  /// A body stopped at the limit: its announced length when that was over the limit already,
  /// else the bytes received when it was stopped.
  struct BodyLimitExceeded: Error {
    let byteCount: Int
  }

  /// One data task's body so far and where its end goes.
  private struct Reception {
    let limit: Int
    let progress: ProgressReport?
    let completion: Completion
    var body = Data()
    /// The body's announced length, once the response's head said it (see ``ProgressReport``).
    var expected: Int64?
    /// Set once the body passed the limit: the size to report (the body is dropped).
    var exceeded: Int?
    /// A 401 asking for credentials the session does not have: the task is cancelled to end it,
    /// and its end is this response with its body.
    var unanswered: URLResponse?

    /// Keeps `data`, unless the body passes the limit: then drops the body and returns true,
    /// once, to have the task cancelled.
    mutating func take(_ data: Data) -> Bool {
      guard exceeded == nil else { return false }
      let received = body.count + data.count
      guard received > limit else {
        body.append(data)
        return false
      }
      return exceed(by: received)
    }

    /// Checks the length a response announced, before any of its body: returns true, once, to
    /// have the task cancelled when it is over the limit.
    mutating func check(announced: Int64) -> Bool {
      guard exceeded == nil, announced > Int64(limit) else { return false }
      return exceed(by: Int(clamping: announced))
    }

    private mutating func exceed(by byteCount: Int) -> Bool {
      exceeded = byteCount
      body = Data()
      return true
    }
  }

  private let receptions = Locked<[ObjectIdentifier: Reception]>([:])

  /// Receives `task`'s body, stopping it past `limit` bytes, reports its progress to `progress`
  /// (at the response's head, then after every chunk, outside any lock), and hands its end to
  /// `completion`. Call it before resuming the task.
  func receive(
    _ task: URLSessionDataTask, limit: Int, progress: ProgressReport?,
    completion: @escaping Completion
  ) {
    receptions.withLock { receptions in
      receptions[ObjectIdentifier(task)] = Reception(
        limit: limit, progress: progress, completion: completion)
    }
  }

  /// Has the task cancelled at its response's head when the response announces a body over the
  /// limit: its body is never waited for (a server may announce a length and send nothing).
  ///
  /// The transfer goes on whatever the disposition says (corelibs 6.3.1 ignores it for HTTP,
  /// neither pausing nor cancelling), so the task is cancelled.
  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    completionHandler(.allow)
    let announced = response.expectedContentLength
    let encoding = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")
    let isDecoded = encoding.map { $0.lowercased() != "identity" } ?? false
    update(dataTask) { reception in
      if announced >= 0, !isDecoded { reception.expected = announced }
      return reception.check(announced: announced)
    }
  }

  /// Keeps a chunk of a task's body, or has the task cancelled once past its limit.
  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    update(dataTask) { $0.take(data) }
  }

  /// Changes `task`'s reception with `change`, cancels the task when it says so, and reports
  /// the body's progress otherwise.
  private func update(_ task: URLSessionDataTask, _ change: (inout Reception) -> Bool) {
    let (stops, progress) = receptions.withLock {
      receptions -> (Bool, (ProgressReport, Int64, Int64?)?) in
      // Changed where it is stored: a copy would make the body's storage shared, and every
      // append would copy it whole.
      guard let index = receptions.index(forKey: ObjectIdentifier(task)) else {
        return (false, nil)
      }
      let stops = change(&receptions.values[index])
      let reception = receptions.values[index]
      guard let report = reception.progress, reception.exceeded == nil else { return (stops, nil) }
      return (stops, (report, Int64(reception.body.count), reception.expected))
    }
    // Off the delegate queue, as every data task cancellation (see NetworkingOperation).
    if stops { dataTaskCancellationQueue.async { task.cancel() } }
    if let (report, received, expected) = progress { report(received, expected) }
  }

  /// `error`, naming `url` (the request under way when it failed) as its failing URL. After a
  /// redirect, swift-corelibs-foundation 6.3.1 names the original request's URL, so a redirect
  /// to a server that refuses the connection read "could not connect to" the server that
  /// redirected; Apple platforms name the URL that failed.
  static func naming(_ url: URL?, in error: any Error) -> any Error {
    #if canImport(FoundationNetworking)
      guard let url, let urlError = error as? URLError, urlError.failingURL != url else {
        return error
      }
      var userInfo = urlError.userInfo
      userInfo[NSURLErrorFailingURLErrorKey] = url
      // `failureURLString` too, so the two agree. (The key's Foundation constant,
      // `NSURLErrorFailingURLStringErrorKey`, is deprecated: its value is spelled out.)
      userInfo["NSErrorFailingURLStringKey"] = url.absoluteString
      return URLError(urlError.code, userInfo: userInfo)
    #else
      return error
    #endif
  }

  #if canImport(FoundationNetworking)
    /// Ends a task whose response is a 401 asking for credentials with that response, when the
    /// session has no credential to answer it with (a first try with a stored Basic credential
    /// goes ahead).
    ///
    /// swift-corelibs-foundation 6.3.1 leaves such a task suspended when nobody answers the
    /// challenge with a credential (issue 5456, fixed after this toolchain): the request waits
    /// for its timeout, then fails as timed out although the server answered at once. Apple
    /// platforms hand the 401 over as the response, so this does the same: the challenge is
    /// cancelled, which cancels the task, and its end is the 401 with its body. A task of other
    /// code on the session (one this delegate was not told about) is not left waiting forever
    /// either: with no credential to try, its challenge is cancelled, and it ends cancelled.
    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      didReceive challenge: URLAuthenticationChallenge,
      completionHandler:
        @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?)
        -> Void
    ) {
      let isFirstBasicTry =
        challenge.proposedCredential != nil && challenge.previousFailureCount == 0
        && challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic
      let response = challenge.failureResponse ?? task.response
      let isOurs = receptions.withLock { receptions -> Bool in
        guard let index = receptions.index(forKey: ObjectIdentifier(task)) else { return false }
        if !isFirstBasicTry { receptions.values[index].unanswered = response }
        return true
      }
      guard !isFirstBasicTry, isOurs || challenge.proposedCredential == nil else {
        completionHandler(.performDefaultHandling, nil)
        return
      }
      // Cancelling the challenge cancels the task: off the delegate queue, as every data task
      // cancellation (see NetworkingOperation).
      dataTaskCancellationQueue.async { completionHandler(.cancelAuthenticationChallenge, nil) }
    }
  #endif

  /// Hands a task's end to the completion ``receive(_:limit:progress:completion:)`` was given.
  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    guard
      let reception = receptions.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) })
    else { return }
    if let exceeded = reception.exceeded {
      reception.completion(nil, task.response, BodyLimitExceeded(byteCount: exceeded))
    } else if let unanswered = reception.unanswered {
      reception.completion(reception.body, unanswered, nil)
    } else if let error {
      reception.completion(nil, task.response, Self.naming(task.currentRequest?.url, in: error))
    } else {
      reception.completion(reception.body, task.response, nil)
    }
  }
}
