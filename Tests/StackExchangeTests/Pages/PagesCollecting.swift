import StackExchange

/// What iterating a page sequence gave: the pages, then the error that ended it, if any.
struct PagesOutcome: Sendable {
  var pages: [FetchedQuestionsPage] = []
  var error: (any Error)?
  /// Whether `next()` returned nil (rather than throwing) once the sequence had ended.
  var endsWithNil = false

  /// The numbers of the pages.
  var numbers: [Int] { pages.map(\.number) }
}

/// Iterates `sequence` to its end (unbounded: bound it with `completing`, or cancel the task).
func collect(_ sequence: QuestionsPageSequence) async -> PagesOutcome {
  var outcome = PagesOutcome()
  var iterator = sequence.makeAsyncIterator()
  do {
    while let page = try await iterator.next() {
      outcome.pages.append(page)
    }
  } catch {
    outcome.error = error
  }
  do {
    outcome.endsWithNil = try await iterator.next() == nil
  } catch {
    outcome.endsWithNil = false
  }
  return outcome
}
