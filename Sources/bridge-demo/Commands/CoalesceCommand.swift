import StackExchange

/// `bridge-demo coalesce`: concurrent callers ask for the same page, half with `try await`,
/// half with completion handlers, and one HTTP request serves them all.
enum CoalesceCommand {
  /// What the demonstration saw.
  struct Outcome {
    /// The report, one line per fact.
    let lines: [String]
    /// The first error a caller got, if any.
    let firstFailure: (any Error)?
  }

  /// The page every caller asks for.
  static let query = QuestionsQuery(site: "stackoverflow", pageSize: 10)

  /// How long the queue may stay suspended while the callers line up.
  static let lineUpLimit: Duration = .seconds(5)

  /// Runs the command.
  static func run(_ options: CoalesceOptions) async -> ExitCode {
    guard let environment = DemoEnvironment.start(baseURL: options.baseURL) else { return .failure }
    let step =
      "\(QuestionFormatter.count(options.callers, "caller")) GET \(environment.requestURL(query))"
    let outcome = await Progress.whileWaiting(step) {
      await demonstrate(callers: options.callers, in: environment)
    }
    outcome.lines.forEach(Console.out)
    guard let failure = outcome.firstFailure else { return .success }
    Console.error(failure)
    return .failure
  }

  /// Starts `callers` concurrent callers for ``query`` and reports how many operations and
  /// HTTP requests served them.
  ///
  /// The manager's queue is suspended until every caller waits (or ``lineUpLimit`` passed),
  /// so the outcome does not depend on how fast the callers' tasks get to run.
  static func demonstrate(callers: Int, in environment: DemoEnvironment) async -> Outcome {
    environment.server?.latency = .zero
    let requestsBefore = environment.server?.questionRequestCount
    let log = CommandEventLog(manager: environment.manager)
    environment.manager.isSuspended = true
    let running = startCallers(callers, on: environment.questions)
    let linedUp = await log.wait(timeout: lineUpLimit) { events in
      events.count { $0.kind == .enqueued || $0.kind == .joined } >= callers
    }
    environment.manager.isSuspended = false
    let results = await running.value
    // Every outcome was published before it was delivered; wait for the log to read them.
    _ = await log.wait(timeout: .seconds(2)) { events in
      let enqueued = events.count { $0.kind == .enqueued }
      return events.count { if case .finished = $0.kind { true } else { false } } >= enqueued
    }

    let asyncCallers = (callers + 1) / 2
    let pages = results.compactMap { try? $0.get() }
    let samePage = pages.allSatisfy { $0 == pages.first }
    let executed = log.count(.started)
    let registered = log.count(.enqueued) + log.count(.joined)
    var lines = [
      callers == 1
        ? "1 caller asked for the page, with try await"
        : "\(callers) callers asked for the same page at once: "
          + "\(asyncCallers) with try await, \(callers - asyncCallers) with completion handlers",
      linedUp
        ? "  queue: suspended until \(callers == 1 ? "the caller was" : "all \(callers) were") "
          + "waiting, then resumed"
        : "  queue: resumed after \(lineUpLimit) with \(registered) of \(callers) waiting",
      "  operations: \(log.count(.enqueued)) enqueued, "
        + "\(QuestionFormatter.count(log.count(.joined), "caller")) joined it, "
        + "\(executed) executed",
    ]
    if let server = environment.server, let requestsBefore {
      lines.append(
        "  HTTP requests: \(server.questionRequestCount - requestsBefore) "
          + "(counted by the embedded server)")
    } else {
      lines.append("  HTTP requests: \(executed) (one per executed operation)")
    }
    let verdict =
      switch (pages.count == callers, samePage) {
      case (true, true):
        "yes, \(callers) of \(callers), the same \(pages.first?.items.count ?? 0) questions"
      case (false, _): "no, \(pages.count) of \(callers)"
      case (true, false): "no, the callers got different pages"
      }
    lines.append("  every caller got the page: \(verdict)")
    let failures = results.compactMap { result -> (any Error)? in
      if case .failure(let error) = result { error } else { nil }
    }
    return Outcome(lines: lines, firstFailure: failures.first)
  }

  /// Starts `count` callers of ``query`` at once: even ones with `try await`, odd ones with a
  /// completion handler. The task returns their results.
  private static func startCallers(
    _ count: Int, on questions: QuestionsDataManager
  ) -> Task<[Result<QuestionsPage, any Error>], Never> {
    Task {
      await withTaskGroup(of: Result<QuestionsPage, any Error>.self) { group in
        for caller in 0..<count {
          if caller.isMultiple(of: 2) {
            group.addTask {
              do {
                return .success(try await questions.questions(query))
              } catch {
                return .failure(error)
              }
            }
          } else {
            group.addTask {
              await withCheckedContinuation { continuation in
                questions.fetchQuestions(query) { continuation.resume(returning: $0) }
              }
            }
          }
        }
        return await group.reduce(into: []) { $0.append($1) }
      }
    }
  }
}
