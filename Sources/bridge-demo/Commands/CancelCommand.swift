import OperationCore
import StackExchange

/// `bridge-demo cancel`: starts a fetch, cancels the calling task, and shows each layer letting
/// go: the caller, the operation, the HTTP request, the queue.
enum CancelCommand {
  /// What the demonstration saw.
  struct Outcome {
    /// The report, one line per layer.
    let lines: [String]
    /// Why the demonstration failed, one line; nil when every layer let go.
    let problem: String?
  }

  /// The page the cancelled caller asks for.
  static let query = QuestionsQuery(site: "stackoverflow", pageSize: 10)

  /// How long each wait for a consequence of the cancellation may take.
  private static let patience: Duration = .seconds(2)

  /// When to cancel if neither `--after` nor the embedded server says when.
  static let defaultDelay: Duration = .milliseconds(200)

  /// How long to wait for the embedded server to receive the request before cancelling anyway.
  private static let arrivalPatience: Duration = .seconds(10)

  /// Runs the command.
  static func run(_ options: CancelOptions) async -> ExitCode {
    guard let environment = DemoEnvironment.start(baseURL: options.baseURL) else { return .failure }
    let when =
      switch (options.after, environment.server) {
      case (let after?, _): milliseconds(after) + " after the call"
      case (nil, .some): "once the server has the request"
      case (nil, nil): milliseconds(defaultDelay) + " after the call"
      }
    Progress.report("GET \(environment.requestURL(query)), cancelling the calling task \(when)")
    let outcome = await demonstrate(after: options.after, in: environment)
    outcome.lines.forEach(Console.out)
    guard let problem = outcome.problem else { return .success }
    Console.error("error: \(problem)")
    return .failure
  }

  /// Starts a fetch of ``query`` in a task, cancels the task, and checks what became of the
  /// caller, the operation, the HTTP request and the queue.
  ///
  /// - Parameter after: When to cancel, counted from the call. Nil cancels as soon as the
  ///   embedded server has received the request, so that every layer has something to let go
  ///   of; without the embedded server, nil means ``defaultDelay``.
  static func demonstrate(after: Duration?, in environment: DemoEnvironment) async -> Outcome {
    let server = environment.server
    server?.latency = max(.seconds(5), (after ?? .zero) + .seconds(1))
    let requestsBefore = server?.questionRequestCount ?? 0
    let abandonedBefore = server?.abandonedResponseCount ?? 0
    let log = EventLog(manager: environment.manager)
    let questions = environment.questions

    let calledAt = ContinuousClock.now
    let caller = Task { try await questions.questions(query) }
    let when: String
    if let server, after == nil {
      let arrived = await server.waitForQuestionRequests(
        requestsBefore + 1, timeout: arrivalPatience)
      let elapsed = milliseconds(ContinuousClock.now - calledAt)
      when =
        arrived
        ? "once the server had the request, \(elapsed) after it called questions(_:)"
        : "\(elapsed) after it called questions(_:), the server still without the request"
    } else {
      let delay = after ?? defaultDelay
      try? await Task.sleep(until: calledAt + delay)
      when = "\(milliseconds(delay)) after it called questions(_:)"
    }
    let dataTasksBefore = environment.runningDataTasks()
    let cancelledAt = ContinuousClock.now
    caller.cancel()
    let result = await caller.result
    let callerLatency = ContinuousClock.now - cancelledAt

    var lines = ["cancelled the calling task \(when)"]
    switch result {
    case .failure(let error) where error is CancellationError:
      lines.append("  caller: CancellationError, \(milliseconds(callerLatency)) after cancel()")
    case .failure(let error):
      let cause = FailureDescription.oneLine(error)
      return Outcome(lines: lines + ["  caller: failed before the cancellation"], problem: cause)
    case .success:
      return Outcome(
        lines: lines + ["  caller: got the page before the cancellation"],
        problem: "the request finished before the cancellation; try a smaller --after")
    }

    var problems: [String] = []
    if await log.wait(
      timeout: patience, until: { $0.contains { $0.kind == .finished(.cancelled) } })
    {
      lines.append("  operation: cancelled, since its only waiter left")
    } else if log.count(.enqueued) == 0 {
      lines.append("  operation: none, the task was cancelled before it called in")
    } else {
      lines.append("  operation: not cancelled")
      problems.append("the operation was not cancelled")
    }

    if let server {
      let abandoned = await server.waitForAbandonedResponses(abandonedBefore + 1, timeout: patience)
      if abandoned {
        lines.append("  HTTP request: abandoned, the server saw the connection close")
      } else if server.questionRequestCount == requestsBefore {
        lines.append("  HTTP request: never reached the server")
      } else {
        lines.append("  HTTP request: the server did not see the connection close")
        problems.append("the server did not see the connection close")
      }
    }
    let dataTasksGone = await environment.waitUntilCompleted(dataTasksBefore, timeout: patience)
    let before =
      dataTasksBefore.isEmpty
      ? "no data task running yet at the cancellation"
      : "\(QuestionFormatter.count(dataTasksBefore.count, "data task")) running at the cancellation"
    lines.append(
      "  URLSession: \(before), "
        + (dataTasksGone ? "none left after it" : "still running \(patience) later"))
    if !dataTasksGone { problems.append("the data task is still running") }

    let drained = await environment.waitUntilIdle(timeout: patience)
    lines.append(
      drained
        ? "  queue: drained (waitUntilIdle returned, "
          + "\(environment.manager.outstandingOperationCount) operations outstanding)"
        : "  queue: not drained after \(patience)")
    if !drained { problems.append("the queue did not drain") }

    return Outcome(lines: lines, problem: problems.first)
  }

  /// `duration` in whole milliseconds, or with one decimal below 10 ms: `200 ms`, `0.4 ms`.
  static func milliseconds(_ duration: Duration) -> String {
    let value = duration / .milliseconds(1)
    return value < 10 ? "\((value * 10).rounded() / 10) ms" : "\(Int(value.rounded())) ms"
  }
}
