import StackExchange

/// Renders a page of questions as text for a terminal.
enum QuestionFormatter {
  /// A heading line, then three lines per question: title, counts and tags, link. The heading
  /// carries the quota and, when the API sent one, the backoff: the seconds to wait before the
  /// next `/questions` call on the site.
  ///
  /// ```
  /// stackoverflow: 2 latest questions (more available; quota 299 of 300 left; backoff 10 s)
  ///
  ///  1. Why does my OperationQueue never finish when I override "isFinished"?
  ///     score 0 | 0 answers | swift, concurrency, nsoperationqueue
  ///     https://stackoverflow.com/questions/79834101/…
  /// ```
  static func lines(for page: QuestionsPage, site: String) -> [String] {
    ["\(site): \(count(page.items.count, "latest question")) (\(status(of: page)))"]
      + questionLines(page.items, from: 1)
  }

  /// What a heading says about `page` beside its questions:
  /// `more available; quota 299 of 300 left; backoff 10 s`.
  static func status(of page: QuestionsPage) -> String {
    let more = page.hasMore ? "more available; " : ""
    // A backoff of 0 or less asks for no wait (the pages do not announce one either).
    let backoff = page.backoff.flatMap { $0 > 0 ? "; backoff \($0) s" : nil } ?? ""
    return "\(more)quota \(page.quotaRemaining) of \(page.quotaMax) left\(backoff)"
  }

  /// Three lines per question after a blank line: title, counts and tags, link; numbered from
  /// `first`, the numbers right-aligned. The server's text is made terminal-safe.
  static func questionLines(_ questions: [Question], from first: Int) -> [String] {
    let width = String(first + questions.count - 1).count
    let indent = String(repeating: " ", count: width + 2)
    var lines: [String] = []
    for (offset, question) in questions.enumerated() {
      let number = String(first + offset)
      let title = question.displayTitle.terminalSafe
      let tags =
        question.tags.isEmpty ? "no tags" : question.tags.joined(separator: ", ").terminalSafe
      lines.append("")
      lines.append(
        String(repeating: " ", count: width - number.count) + "\(number). \(title)")
      lines.append(
        indent + "score \(question.score) | \(count(question.answerCount, "answer")) | \(tags)")
      lines.append(indent + question.link.absoluteString)
    }
    return lines
  }

  /// `1 answer`, `2 answers`.
  static func count(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
  }
}
