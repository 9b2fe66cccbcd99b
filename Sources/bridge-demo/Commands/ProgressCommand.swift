import Foundation
import LockedValue
import OperationCore
import StackExchange

/// `bridge-demo progress`: two callers, one with `try await` and one with a completion
/// handler, ask for one large page that the embedded server sends slowly; one HTTP request
/// feeds both, and both follow its progress (a bar on standard error, when it is a terminal).
enum ProgressCommand {
  /// What the demonstration saw.
  struct Outcome: Encodable {
    /// How many callers asked.
    let callers: Int
    /// The HTTP requests the embedded server received; nil with `--base-url`.
    let httpRequests: Int?
    /// How many progress values each caller was handed.
    let progressUpdates: [Int]
    /// The bytes received, as the last value either caller was handed said.
    let bytes: Int64?
    /// The length the response announced, if it did.
    let totalBytes: Int64?
    /// Whether both callers got the same page.
    let samePage: Bool
    /// The questions on the page.
    let questions: Int
  }

  /// The page both callers ask for: as large as the API allows.
  static let query = QuestionsQuery(site: "stackoverflow", pageSize: 100)
  /// How the embedded server sends it: slowly enough for a bar to fill over a few seconds.
  static let pace = (chunkSize: 400, interval: Duration.milliseconds(60))
  /// The callers, as the bar and the report name them.
  static let callerNames = ["try await", "completion handler"]

  /// Runs the command.
  static func run(_ options: ProgressOptions) async -> ExitCode {
    guard let environment = DemoEnvironment.start(baseURL: options.baseURL) else { return .failure }
    environment.server?.pace = pace
    let bar = options.json ? nil : ProgressBar.onTerminal(labels: callerNames)
    let (outcome, failure) = await demonstrate(in: environment) { progress, caller in
      bar?.show(progress, forCaller: caller)
    }
    bar?.erase()
    if options.json {
      Console.out(json(outcome))
    } else {
      report(outcome).forEach(Console.out)
    }
    guard let failure else { return .success }
    Console.error(failure)
    return .failure
  }

  /// Starts both callers with the manager's queue suspended until both wait, so that they
  /// share one request whatever the scheduling, and returns what they saw and the first
  /// failure.
  static func demonstrate(
    in environment: DemoEnvironment,
    show: @escaping @Sendable (OperationProgress, Int) -> Void
  ) async -> (Outcome, (any Error)?) {
    let requestsBefore = environment.server?.questionRequestCount
    let seen = Locked<[[OperationProgress]]>(callerNames.map { _ in [] })
    let observers = callerNames.indices.map { caller -> @Sendable (OperationProgress) -> Void in
      { progress in
        seen.withLock { $0[caller].append(progress) }
        show(progress, caller)
      }
    }
    let (first, second) = (observers[0], observers[1])
    let log = CommandEventLog(manager: environment.manager)
    let questions = environment.questions
    environment.manager.isSuspended = true
    let awaiting = Task { () -> Result<QuestionsPage, any Error> in
      do {
        return .success(try await questions.questions(query, onProgress: first))
      } catch {
        return .failure(error)
      }
    }
    let handling = Task {
      await withCheckedContinuation { continuation in
        questions.fetchQuestions(query, onProgress: second) { continuation.resume(returning: $0) }
      }
    }
    _ = await log.wait(timeout: .seconds(5)) { events in
      events.count { $0.kind == .enqueued || $0.kind == .joined } >= 2
    }
    environment.manager.isSuspended = false
    let results = [await awaiting.value, await handling.value]
    let pages = results.compactMap { try? $0.get() }
    let values = seen.withLock { $0 }
    let last = values.compactMap(\.last).max { $0.completedUnitCount < $1.completedUnitCount }
    let outcome = Outcome(
      callers: results.count,
      httpRequests: requestsBefore.map { (environment.server?.questionRequestCount ?? $0) - $0 },
      progressUpdates: values.map(\.count), bytes: last?.completedUnitCount,
      totalBytes: last?.totalUnitCount,
      samePage: pages.count == results.count && pages.allSatisfy { $0 == pages.first },
      questions: pages.first?.items.count ?? 0)
    let failure = results.lazy.compactMap { result -> (any Error)? in
      if case .failure(let error) = result { error } else { nil }
    }.first
    return (outcome, failure)
  }

  /// The report, one line per fact.
  static func report(_ outcome: Outcome) -> [String] {
    let bytes =
      switch (outcome.bytes, outcome.totalBytes) {
      case (let bytes?, let total?): "\(bytes) of \(total) bytes"
      case (let bytes?, nil): "\(bytes) bytes (no length announced)"
      case (nil, _): "no progress reported"
      }
    let updates = zip(callerNames, outcome.progressUpdates).map { "\($0) \($1)" }
    return [
      "2 callers asked for one large page: 1 with try await, 1 with a completion handler",
      outcome.httpRequests.map { "  HTTP requests: \($0) (counted by the embedded server)" }
        ?? "  HTTP requests: one, shared (not counted: --base-url)",
      "  progress values: " + updates.joined(separator: ", ") + " (newest first, no backlog)",
      "  last value: \(bytes)",
      "  every caller got the page: "
        + (outcome.samePage ? "yes, the same \(outcome.questions) questions" : "no"),
    ]
  }

  /// The outcome as one JSON object with snake_case keys.
  static func json(_ outcome: Outcome) -> String {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys]
    // A struct of integers, booleans and arrays of them always encodes.
    let data = (try? encoder.encode(outcome)) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }
}
