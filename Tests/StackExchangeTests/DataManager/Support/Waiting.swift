import AsyncBridge
import OperationCore
import StackExchange
import TestSupport
import Testing

/// The result of `questions(_:)` for `query`, or nil if it did not return within 30 s.
func asyncResult(
  _ dataManager: QuestionsDataManager, _ query: QuestionsQuery
) async -> Result<QuestionsPage, any Error>? {
  await completing {
    do {
      return .success(try await dataManager.questions(query))
    } catch {
      return .failure(error)
    }
  }
}

/// The result `fetchQuestions(_:callbackQueue:completion:)` delivers for `query`, or nil if it
/// was not delivered within 30 s.
func handlerResult(
  _ dataManager: QuestionsDataManager, _ query: QuestionsQuery
) async -> Result<QuestionsPage, any Error>? {
  await completing {
    await withCheckedContinuation { continuation in
      dataManager.fetchQuestions(query) { continuation.resume(returning: $0) }
    }
  }
}

/// Waits until `count` requests were enqueued or joined on `events`; false after 30 s.
func registrations(_ count: Int, on events: OperationEventStream) async -> Bool {
  await completing {
    var seen = 0
    for await event in events where event.kind == .enqueued || event.kind == .joined {
      seen += 1
      if seen == count { return true }
    }
    return false
  } ?? false
}

/// The error of a failed result; records an issue for a success or a missing result.
func failure(
  of result: Result<QuestionsPage, any Error>?,
  sourceLocation: SourceLocation = #_sourceLocation
) -> (any Error)? {
  switch result {
  case nil:
    Issue.record("no result within the time limit", sourceLocation: sourceLocation)
  case .success(let page)?:
    Issue.record(
      "expected a failure, got \(page.items.count) questions", sourceLocation: sourceLocation)
  case .failure(let error)?:
    return error
  }
  return nil
}

/// The page of a successful result; records an issue otherwise.
func page(
  of result: Result<QuestionsPage, any Error>?,
  sourceLocation: SourceLocation = #_sourceLocation
) -> QuestionsPage? {
  switch result {
  case nil:
    Issue.record("no result within the time limit", sourceLocation: sourceLocation)
  case .success(let page)?:
    return page
  case .failure(let error)?:
    Issue.record("expected a page, got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}
