import OperationNetworking

/// The pages of a `/questions` query, in order, as
/// ``QuestionsDataManager/pages(_:maxPages:maxBackoffWait:)`` returns them.
///
/// Each page is one request through the data manager's `OperationQueueManager`, exactly like
/// ``QuestionsDataManager/questions(_:)``: identical page requests from other callers share
/// it, and the queue's width, priorities, suspension and cancel-all apply to it. The sequence
/// ends after the page whose `has_more` is false, or after `maxPages` pages (or after page
/// `Int.max`, which nothing follows).
///
/// **One page ahead.** When a page is delivered and more may follow, the request for the next
/// one starts at once (after any backoff), so it is usually there when the loop asks for it.
/// Leaving the loop early (`break`, `return`, a thrown error) or dropping the iterator cancels
/// that request, and its connection is closed unless another caller still waits for the same
/// page.
///
/// **Backoff.** When a page carries `backoff: N`, the next request is sent only N seconds
/// later: the sequence waits without holding a thread, and reports the wait in
/// ``FetchedQuestionsPage/backoffWait`` of the page that followed it. The same backoff makes
/// single calls for that site fail fast with ``BackoffError`` meanwhile, and a backoff that
/// single calls received is waited out here too: both read the data manager's record. A
/// backoff with more than `maxBackoffWait` left (by default ``defaultMaxBackoffWait``, 60 s) is
/// not waited out: the sequence ends with ``BackoffError``, whose `retryAfter` says how long
/// remains, rather than sit silent for as long as a misbehaving server asks.
///
/// **Cancellation.** Cancelling the task that iterates ends the pending `next()` at once with
/// `CancellationError`, whether it waits for a response or for a backoff, and cancels the page
/// request as above. A `next()` called by an already cancelled task throws
/// `CancellationError` without sending anything.
///
/// **Errors.** The first error ends the sequence (later calls to `next()` return nil):
/// ``QueryError`` for an invalid query or base URL, ``BackoffError`` for a backoff too long to
/// wait out, `NetworkingError` when an exchange fails
/// (the API's error body arrives as `badStatus` carrying a ``StackExchangeAPIError``, see
/// `NetworkingError.stackExchangeAPIError`), `OperationTimeoutError` past the request timeout,
/// `CancellationError` when cancelled.
public struct QuestionsPageSequence: AsyncSequence, Sendable {
  /// The element type: one page with its number and the backoff wait before it.
  public typealias Element = FetchedQuestionsPage

  private let dataManager: QuestionsDataManager
  private let query: QuestionsQuery
  private let maxPages: Int
  private let maxBackoffWait: Duration

  /// The longest backoff a sequence waits out unless told otherwise: 60 seconds.
  public static let defaultMaxBackoffWait = Duration.seconds(60)

  init(
    dataManager: QuestionsDataManager, query: QuestionsQuery, maxPages: Int,
    maxBackoffWait: Duration
  ) {
    self.dataManager = dataManager
    self.query = query
    self.maxPages = maxPages
    self.maxBackoffWait = maxBackoffWait
  }

  /// Makes an iterator; each iterator requests the pages again from the first.
  public func makeAsyncIterator() -> Iterator {
    Iterator(
      fetcher: PageFetcher(dataManager: dataManager, query: query, maxBackoffWait: maxBackoffWait),
      maxPages: maxPages)
  }
}
