import Foundation
import OperationCore
import StackExchange

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

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
  static let patience: Duration = .seconds(2)

  /// When to cancel if neither `--after` nor the embedded server says when.
  static let defaultDelay: Duration = .milliseconds(200)

  /// How long to wait for the embedded server to receive the request before cancelling anyway.
  static let arrivalPatience: Duration = .seconds(10)

  /// Runs the command.
  static func run(_ options: CancelOptions) async -> ExitCode {
    guard let environment = DemoEnvironment.start(baseURL: options.baseURL) else { return .failure }
    let step =
      "GET \(environment.requestURL(query)), cancelling the calling task "
      + due(after: options.after, embedded: environment.server != nil)
      + (options.keep ? ", which asked for the request to complete" : "")
    let outcome = await Progress.whileWaiting(step) {
      options.keep
        ? await demonstrateKeeping(after: options.after, in: environment)
        : await demonstrate(after: options.after, in: environment)
    }
    outcome.lines.forEach(Console.out)
    guard let problem = outcome.problem else { return .success }
    Console.error("error: \(problem)")
    return .failure
  }

  /// When the cancellation is due: `200 ms after the call`, `once the server has the request`.
  static func due(after: Duration?, embedded: Bool) -> String {
    switch (after, embedded) {
    case (let after?, _): milliseconds(after) + " after the call"
    case (nil, true): "once the server has the request"
    case (nil, false): milliseconds(defaultDelay) + " after the call"
    }
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
    let log = CommandEventLog(manager: environment.manager)
    let questions = environment.questions

    let (callerEnded, endOfCaller) = AsyncStream<Never>.makeStream()
    let calledAt = ContinuousClock.now
    let caller = Task {
      defer { endOfCaller.finish() }
      return try await questions.questions(query)
    }
    // The first line of the report: when the task was cancelled, or that the request ended
    // before it was due.
    let heading: String
    let endedFirst = {
      "the request ended \(milliseconds(ContinuousClock.now - calledAt)) after the call, "
        + "before the cancellation due \(due(after: after, embedded: server != nil))"
    }
    if let server, after == nil {
      let arrival = await waitUnlessEnded(callerEnded) {
        await server.waitForQuestionRequests(requestsBefore + 1, timeout: arrivalPatience)
      }
      let elapsed = milliseconds(ContinuousClock.now - calledAt)
      switch arrival {
      case nil:
        heading = endedFirst()
      case true?:
        heading =
          "cancelled the calling task once the server had the request, "
          + "\(elapsed) after it called questions(_:)"
      case false?:
        heading =
          "cancelled the calling task \(elapsed) after it called questions(_:), "
          + "the server still without the request"
      }
    } else {
      let delay = after ?? defaultDelay
      let slept: Void? = await waitUnlessEnded(callerEnded) {
        try? await Task.sleep(until: calledAt + delay)
      }
      heading =
        slept == nil
        ? endedFirst()
        : "cancelled the calling task \(milliseconds(delay)) after it called questions(_:)"
    }
    let dataTasksBefore = await runningDataTasks(in: environment, log: log)
    let cancelledAt = ContinuousClock.now
    caller.cancel()
    let result = await caller.result
    let callerLatency = ContinuousClock.now - cancelledAt

    var lines = [heading]
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
    let outstanding = QuestionFormatter.count(
      environment.manager.outstandingOperationCount, "operation")
    lines.append(
      drained
        ? "  queue: drained (waitUntilIdle returned, \(outstanding) outstanding)"
        : "  queue: not drained after \(patience)")
    if !drained { problems.append("the queue did not drain") }

    return Outcome(lines: lines, problem: problems.first)
  }

  /// Runs `wait` until it returns or the caller ends (`callerEnded` finishes), whichever comes
  /// first, and cancels the other.
  ///
  /// - Returns: What `wait` returned, or nil if the caller ended first.
  static func waitUnlessEnded<Value: Sendable>(
    _ callerEnded: AsyncStream<Never>, _ wait: @escaping @Sendable () async -> Value
  ) async -> Value? {
    await withTaskGroup(of: Value?.self) { group in
      group.addTask {
        for await _ in callerEnded {}
        return nil
      }
      group.addTask { await wait() }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }

  /// The data tasks running now for the requests `log` saw enqueued, looked up through the
  /// manager's in-flight index. Waits (briefly) for the log to catch up with an operation the
  /// manager already counts.
  private static func runningDataTasks(
    in environment: DemoEnvironment, log: CommandEventLog
  ) async -> [URLSessionDataTask] {
    if environment.manager.outstandingOperationCount > 0 {
      _ = await log.wait(timeout: patience) { $0.contains { $0.kind == .enqueued } }
    }
    let keys = Set(log.events.filter { $0.kind == .enqueued }.compactMap(\.key))
    return keys.compactMap(environment.runningDataTask(for:))
  }

  /// `duration` in whole milliseconds, or with one decimal below 10 ms: `200 ms`, `0.4 ms`.
  static func milliseconds(_ duration: Duration) -> String {
    let value = duration / .milliseconds(1)
    return value < 10 ? "\((value * 10).rounded() / 10) ms" : "\(Int(value.rounded())) ms"
  }
}
