import Foundation
import LockedValue

/// An offline stand-in for the StackExchange API 2.3 `/questions` method.
///
/// Serves ``questionCount`` invented questions for any supported site (`stackoverflow`,
/// `superuser`, `serverfault`, `askubuntu`, `math`, or their domain names), as gzip-compressed JSON
/// (uncompressed, and sent slowly, while ``pace`` is set) shaped like the real API: `items`,
/// `has_more`, `quota_max`, `quota_remaining` and, when set, `backoff` (for every page, or for
/// chosen page numbers, so a client that follows `has_more` meets a backoff on its way).
/// Parameters: `site` (required), `pagesize` 1…100 (default 30), `page` ≥ 1 (default 1), `sort`
/// `activity`|`creation`|`votes` (default `activity`), `order` `desc`|`asc` (default `desc`).
/// Errors use the real API's JSON error body with status 400 (bad parameter, quota exhausted) or
/// 404 (unknown method).
///
/// ```swift
/// let fixture = StackExchangeFixture(latency: .milliseconds(50))
/// let server = try FixtureHTTPServer(responder: fixture.respond(to:))
/// ```
///
/// The questions come from `Resources/questions.json`, embedded in the target. Should they not
/// decode, every request gets a 400 `internal_error` body describing ``FixtureDataError``.
public final class StackExchangeFixture: Sendable {
  private struct State {
    var latency: Duration
    var backoff: Int?
    var pageBackoffs: [Int: Int]
    var quotaRemaining: Int
    var pace: (chunkSize: Int, interval: Duration)?
  }

  /// Site API names and domains the fixture answers for.
  private static let supportedSites: Set<String> = [
    "stackoverflow", "stackoverflow.com", "superuser", "superuser.com", "serverfault",
    "serverfault.com", "askubuntu", "askubuntu.com", "math", "math.stackexchange.com",
  ]

  /// The number of questions the fixture serves on every site (0 if its data did not decode).
  public static var questionCount: Int { (try? embeddedQuestions.get())?.count ?? 0 }

  /// The daily request quota reported as `quota_max`.
  public let quotaMax: Int
  private let state: Locked<State>
  /// The questions served, or why there are none.
  private let questionData: Result<[FixtureQuestion], FixtureDataError>

  /// Creates a fixture with a full quota.
  /// - Parameters:
  ///   - latency: Delay before each response is sent.
  ///   - backoff: When set, successful responses carry `"backoff": backoff`.
  ///   - pageBackoffs: `backoff` values (seconds) by page number, e.g. `[2: 1]` adds
  ///     `"backoff": 1` to every successful page 2; ``backoff`` applies to the other pages.
  ///   - quotaMax: The quota; each successful response uses one unit, and once it is used up
  ///     requests fail with a `throttle_violation` error.
  public convenience init(
    latency: Duration = .zero, backoff: Int? = nil, pageBackoffs: [Int: Int] = [:],
    quotaMax: Int = 300
  ) {
    self.init(
      questionData: Self.embeddedQuestions, latency: latency, backoff: backoff,
      pageBackoffs: pageBackoffs, quotaMax: quotaMax)
  }

  /// Creates a fixture serving `questionData` (tests pass data that did not decode).
  init(
    questionData: Result<[FixtureQuestion], FixtureDataError>, latency: Duration = .zero,
    backoff: Int? = nil, pageBackoffs: [Int: Int] = [:], quotaMax: Int = 300
  ) {
    self.questionData = questionData
    self.quotaMax = quotaMax
    state = Locked(
      State(
        latency: latency, backoff: backoff, pageBackoffs: pageBackoffs, quotaRemaining: quotaMax))
  }

  /// Delay before each response is sent; may be changed while serving.
  public var latency: Duration {
    get { state.withLock { $0.latency } }
    set { state.withLock { $0.latency = newValue } }
  }

  /// The `backoff` value added to successful responses, or `nil` for none; may be changed while
  /// serving.
  public var backoff: Int? {
    get { state.withLock { $0.backoff } }
    set { state.withLock { $0.backoff = newValue } }
  }

  /// The `backoff` values added to successful responses by page number; may be changed while
  /// serving. A page listed here carries its own value instead of ``backoff``.
  public var pageBackoffs: [Int: Int] {
    get { state.withLock { $0.pageBackoffs } }
    set { state.withLock { $0.pageBackoffs = newValue } }
  }

  /// When set, every response is sent uncompressed, with its `Content-Length`, `chunkSize` bytes at
  /// a time with `interval` between sends (``FixtureResponse/Fault/paced(chunkSize:interval:)``): a
  /// page that takes long to arrive, whose progress a client can follow. May be changed while
  /// serving.
  public var pace: (chunkSize: Int, interval: Duration)? {
    get { state.withLock { $0.pace } }
    set { state.withLock { $0.pace = newValue } }
  }

  /// The quota left, as reported in the last successful response.
  public var quotaRemaining: Int {
    state.withLock { $0.quotaRemaining }
  }

  /// Answers one request like the real API would.
  public func respond(to request: FixtureRequest) -> FixtureResponse {
    var response = page(for: request)
    let (latency, pace) = state.withLock { ($0.latency, $0.pace) }
    response.latency = latency
    if let pace {
      response.contentEncoding = .identity
      response.fault = .paced(chunkSize: pace.chunkSize, interval: pace.interval)
    }
    return response
  }

  private func page(for request: FixtureRequest) -> FixtureResponse {
    let path = request.path.hasSuffix("/") ? String(request.path.dropLast()) : request.path
    guard request.method == "GET", path.hasSuffix("/questions") else {
      return Self.error(404, name: "no_method", message: "no method found with this name")
    }
    guard let site = request.query["site"], !site.isEmpty else {
      return Self.badParameter("site is required")
    }
    guard Self.supportedSites.contains(site.lowercased()) else {
      return Self.badParameter("No site found for name `\(site)`")
    }
    guard let pageSize = Self.integer(request.query["pagesize"], default: 30, in: 1...100) else {
      return Self.badParameter("pagesize")
    }
    guard let page = Self.integer(request.query["page"], default: 1, in: 1...Int.max) else {
      return Self.badParameter("page")
    }
    guard let sortKey = Self.sortKey(named: request.query["sort"] ?? "activity") else {
      return Self.badParameter("sort")
    }
    let order = request.query["order"] ?? "desc"
    guard order == "desc" || order == "asc" else { return Self.badParameter("order") }
    let questions: [FixtureQuestion]
    switch questionData {
    case .success(let decoded): questions = decoded
    case .failure(let error): return Self.error(500, name: "internal_error", message: "\(error)")
    }
    let quota = state.withLock { state -> (remaining: Int, backoff: Int?)? in
      guard state.quotaRemaining > 0 else { return nil }
      state.quotaRemaining -= 1
      return (state.quotaRemaining, state.pageBackoffs[page] ?? state.backoff)
    }
    guard let quota else {
      return Self.error(
        502, name: "throttle_violation",
        message: "too many requests from this IP, more requests available in 86400 seconds")
    }
    let ordered = questions.sorted { lhs, rhs in
      let lhsKey = (lhs[keyPath: sortKey], lhs.questionId)
      let rhsKey = (rhs[keyPath: sortKey], rhs.questionId)
      return order == "desc" ? lhsKey > rhsKey : lhsKey < rhsKey
    }
    let (skipped, overflow) = (page - 1).multipliedReportingOverflow(by: pageSize)
    let start = overflow ? ordered.count : min(skipped, ordered.count)
    let items = ordered[start..<min(start + pageSize, ordered.count)]
    return Self.gzipJSON(
      QuestionsPage(
        items: Array(items), hasMore: start + pageSize < ordered.count, quotaMax: quotaMax,
        quotaRemaining: quota.remaining, backoff: quota.backoff),
      status: 200)
  }
}
