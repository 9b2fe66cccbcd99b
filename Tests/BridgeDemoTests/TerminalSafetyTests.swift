import Foundation
import OperationCore
import OperationNetworking
import StackExchange
import Testing

@testable import bridge_demo

/// A server's text reaches the terminal inert: no escape sequence, bell or line break in a
/// title, a tag or an error line takes effect.
@Suite struct TerminalSafetyTests {
  @Test(arguments: [
    ("plain title, ünïcödé and emoji 🚀", "plain title, ünïcödé and emoji 🚀"),
    ("line one\nline two\r\tend", "line one line two  end"),
    ("\u{1B}[31mRED\u{1B}[0m \u{07}", "␛[31mRED␛[0m ␇"),
    ("\u{1B}]0;owned\u{07}", "␛]0;owned␇"),
    ("a\u{0}b\u{7F}c\u{8}", "a␀b␡c␈"),
    ("next\u{85}line\u{2028}sep", "next line sep"),
    ("csi\u{9B}31m and \u{202E}reversed\u{2069}", "csi\u{FFFD}31m and \u{FFFD}reversed\u{FFFD}"),
  ])
  func controlCharactersShowAsThemselvesNotAsCommands(text: String, shown: String) {
    #expect(text.terminalSafe == shown)
  }

  @Test func aTitleWithControlCharactersStaysOnItsLineAndInert() throws {
    let json = #"""
      {"question_id": 1, "title": "one\ntwo &#10; three\r&#27;[2J \u001b[31m", "link": "https://example.com/q/1",
       "tags": ["a\u0007b"], "score": 0, "answer_count": 0, "view_count": 0, "is_answered": false,
       "creation_date": 0, "last_activity_date": 0}
      """#
    let question = try JSONDecoder().decode(Question.self, from: Data(json.utf8))

    let lines = QuestionFormatter.questionLines([question], from: 1)

    #expect(lines.count == 4)
    #expect(lines[1] == "1. one two   three ␛[2J ␛[31m")
    #expect(lines[2].hasSuffix("a␇b"))
    for line in lines {
      #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
    }
  }

  @Test func anErrorBodyExcerptCannotRetitleTheTerminal() {
    let excerpt = "\u{1B}]0;owned\u{07}\u{1B}[31mnot json\u{8}\u{8}"
    let error = NetworkingError.badStatus(statusCode: 502, serverError: nil, bodyExcerpt: excerpt)

    let line = FailureDescription.oneLine(error)

    #expect(line.contains("␛]0;owned␇␛[31mnot json␈␈"))
    #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
  }
}
