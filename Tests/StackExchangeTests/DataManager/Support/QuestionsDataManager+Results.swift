import AsyncBridge
import OperationCore
import StackExchange
import TestSupport

/// The result of `questions(_:)` for `query`, or nil if it did not return within
/// `Duration.testTimeout`.
func asyncResult(
  _ dataManager: QuestionsDataManager, _ query: QuestionsQuery
) async -> Result<QuestionsPage, any Error>? {
  await completing { await Result { try await dataManager.questions(query) } }
}

/// The result `fetchQuestions(_:callbackQueue:completion:)` delivers for `query`, or nil if it
/// was not delivered within `Duration.testTimeout`.
func handlerResult(
  _ dataManager: QuestionsDataManager, _ query: QuestionsQuery
) async -> Result<QuestionsPage, any Error>? {
  await completing {
    await withCheckedContinuation { continuation in
      dataManager.fetchQuestions(query) { continuation.resume(returning: $0) }
    }
  }
}

/// Waits until `count` requests were enqueued or joined on `events`; false after
/// `Duration.testTimeout`.
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
