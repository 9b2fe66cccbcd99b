import Foundation
import OperationCore
import StackExchange

/// `bridge-demo cancel --keep`: the caller asks for the request to complete after it leaves
/// (`whenAbandoned: .finish`), is cancelled mid-request, and a second caller a moment later
/// joins the request still in flight: one request to the server, the page for the second caller.
extension CancelCommand {
  /// How long the embedded server holds the response: long enough for the second caller to
  /// find the request in flight, a moment after the first one left, on a loaded machine too.
  private static let keptLatency: Duration = .seconds(3)

  /// How long after the first caller left the second one asks for the same page.
  static let secondCallerDelay: Duration = .milliseconds(100)

  /// Starts a fetch of ``query`` that asks to be completed when abandoned, cancels its caller,
  /// lets a second caller ask for the same page, and checks what became of both callers, the
  /// operation, the server's request count and the queue.
  ///
  /// - Parameter after: When to cancel, counted from the call; nil cancels as soon as the
  ///   embedded server has received the request (without it, after ``defaultDelay``).
  static func demonstrateKeeping(
    after: Duration?, in environment: DemoEnvironment
  ) async -> Outcome {
    let server = environment.server
    server?.latency = (after ?? .zero) + keptLatency
    let requestsBefore = server?.questionRequestCount ?? 0
    let log = CommandEventLog(manager: environment.manager)
    let questions = environment.questions

    let (callerEnded, endOfCaller) = AsyncStream<Never>.makeStream()
    let calledAt = ContinuousClock.now
    let first = Task {
      defer { endOfCaller.finish() }
      return try await questions.questions(query, whenAbandoned: .finish)
    }
    if let server, after == nil {
      _ = await waitUnlessEnded(callerEnded) {
        await server.waitForQuestionRequests(requestsBefore + 1, timeout: arrivalPatience)
      }
    } else {
      _ = await waitUnlessEnded(callerEnded) {
        try? await Task.sleep(until: calledAt + (after ?? defaultDelay))
      }
    }
    let heading =
      "cancelled the calling task \(milliseconds(ContinuousClock.now - calledAt)) after it "
      + "called questions(_:whenAbandoned: .finish)"
    let cancelledAt = ContinuousClock.now
    first.cancel()
    let firstResult = await first.result
    var lines = [heading]
    switch firstResult {
    case .failure(let error) where error is CancellationError:
      lines.append(
        "  first caller: CancellationError, "
          + "\(milliseconds(ContinuousClock.now - cancelledAt)) after cancel()")
    case .failure(let error):
      return Outcome(
        lines: lines + ["  first caller: failed before the cancellation"],
        problem: FailureDescription.oneLine(error))
    case .success:
      return Outcome(
        lines: lines + ["  first caller: got the page before the cancellation"],
        problem: "the request finished before the cancellation; try a smaller --after")
    }

    var problems: [String] = []
    try? await Task.sleep(for: secondCallerDelay)
    let joinedBefore = log.count(.joined)
    let secondResult: Result<QuestionsPage, any Error>
    do {
      secondResult = .success(try await questions.questions(query))
    } catch {
      secondResult = .failure(error)
    }
    let joined = log.count(.joined) > joinedBefore
    switch secondResult {
    case .success(let page):
      let how = joined ? "joined the request still in flight" : "sent a request of its own"
      lines.append(
        "  second caller: \(how) \(milliseconds(secondCallerDelay)) after the first left, "
          + "got \(QuestionFormatter.count(page.items.count, "question"))")
    case .failure(let error):
      lines.append("  second caller: failed")
      problems.append(FailureDescription.oneLine(error))
    }

    let completed = await log.wait(timeout: keptLatency + patience) {
      $0.contains { $0.kind == .finished(.success) }
    }
    if log.count(.finished(.cancelled)) > 0 {
      lines.append("  operation: cancelled")
      problems.append("the operation was cancelled although its caller asked to finish it")
    } else if completed {
      lines.append("  operation: ran to its end after its only waiter left")
    } else {
      lines.append("  operation: did not complete within \(keptLatency + patience)")
      problems.append("the operation did not complete")
    }

    if let server {
      let requests = server.questionRequestCount - requestsBefore
      lines.append(
        "  server: \(QuestionFormatter.count(requests, "request")) for both callers")
      if requests != 1 { problems.append("the server received \(requests) requests, not 1") }
    }

    let drained = await environment.waitUntilIdle(timeout: patience)
    lines.append(drained ? "  queue: drained" : "  queue: not drained after \(patience)")
    if !drained { problems.append("the queue did not drain") }
    return Outcome(lines: lines, problem: problems.first)
  }
}
