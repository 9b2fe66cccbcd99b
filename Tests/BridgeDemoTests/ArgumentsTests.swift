import Foundation
import Testing

@testable import bridge_demo

@Suite struct ArgumentsTests {
  @Test func noArgumentsRunTheTour() throws {
    #expect(try Arguments.parse([]) == .tour)
    #expect(try Arguments.parse(["tour"]) == .tour)
  }

  @Test func helpFlagsAndTheHelpCommandShowUsage() throws {
    #expect(try Arguments.parse(["--help"]) == .help(nil))
    #expect(try Arguments.parse(["-h"]) == .help(nil))
    #expect(try Arguments.parse(["help"]) == .help(nil))
    #expect(try Arguments.parse(["help", "help"]) == .help(nil))
    #expect(try Arguments.parse(["help", "coalesce"]) == .help(.coalesce))
    #expect(try Arguments.parse(["--help", "questions"]) == .help(.questions))
    #expect(try Arguments.parse(["-h", "help"]) == .help(nil))
    #expect(try Arguments.parse(["help", "--", "cancel"]) == .help(.cancel))
  }

  @Test func versionIsItsOwnInvocation() throws {
    #expect(try Arguments.parse(["--version"]) == .version)
    #expect(throws: UsageError(reason: .unexpectedArgument("x"), command: nil)) {
      try Arguments.parse(["--version", "x"])
    }
  }

  @Test func doubleDashEndsTheOptions() throws {
    #expect(try Arguments.parse(["--"]) == .tour)
    #expect(try Arguments.parse(["--", "questions"]) == .questions(QuestionsOptions()))
    #expect(
      try Arguments.parse(["questions", "--json", "--"])
        == .questions(QuestionsOptions(json: true)))
    #expect(throws: UsageError(reason: .unexpectedArgument("--help"), command: .questions)) {
      try Arguments.parse(["questions", "--", "--help"])
    }
    #expect(throws: UsageError(reason: .unexpectedArgument("--json"), command: .questions)) {
      try Arguments.parse(["--", "questions", "--json"])
    }
    #expect(throws: UsageError(reason: .unknownCommand("--help"), command: nil)) {
      try Arguments.parse(["--", "--help"])
    }
  }

  @Test(arguments: Subcommand.allCases.filter { $0 != .help })
  func helpFlagAfterACommandShowsItsUsageWhateverElseIsThere(command: Subcommand) throws {
    #expect(try Arguments.parse([command.rawValue, "--help"]) == .help(command))
    #expect(try Arguments.parse([command.rawValue, "--bogus", "-h"]) == .help(command))
  }

  @Test func questionsDefaults() throws {
    #expect(try Arguments.parse(["questions"]) == .questions(QuestionsOptions()))
    #expect(
      QuestionsOptions()
        == QuestionsOptions(baseURL: nil, site: "stackoverflow", pageSize: 10, json: false))
  }

  @Test func questionsWithEveryOption() throws {
    let invocation = try Arguments.parse([
      "questions", "--base-url", "https://api.stackexchange.com/2.3", "--site", "superuser",
      "--pagesize", "100", "--json",
    ])

    let expected = QuestionsOptions(
      baseURL: URL(string: "https://api.stackexchange.com/2.3"), site: "superuser",
      pageSize: 100, json: true)
    #expect(invocation == .questions(expected))
  }

  @Test func questionsPagesTakesACountFrom1To100() throws {
    #expect(
      try Arguments.parse(["questions", "--pages", "1"]) == .questions(QuestionsOptions(pages: 1)))
    #expect(
      try Arguments.parse(["questions", "--json", "--pages=100"])
        == .questions(QuestionsOptions(json: true, pages: 100)))
    #expect(QuestionsOptions().pages == nil)
  }

  @Test func optionsTakeInlineValuesInAnyOrder() throws {
    let invocation = try Arguments.parse([
      "questions", "--json", "--pagesize=1", "--site=askubuntu", "--base-url=HTTP://127.0.0.1:8080",
    ])

    let expected = QuestionsOptions(
      baseURL: URL(string: "http://127.0.0.1:8080"), site: "askubuntu", pageSize: 1, json: true)
    #expect(invocation == .questions(expected))
  }

  @Test func coalesceOptions() throws {
    #expect(
      try Arguments.parse(["coalesce"]) == .coalesce(CoalesceOptions(baseURL: nil, callers: 10)))
    #expect(
      try Arguments.parse(["coalesce", "--callers", "1000", "--base-url", "http://localhost:9"])
        == .coalesce(CoalesceOptions(baseURL: URL(string: "http://localhost:9"), callers: 1000)))
  }

  @Test func cancelOptions() throws {
    #expect(
      try Arguments.parse(["cancel"]) == .cancel(CancelOptions(baseURL: nil, after: nil)))
    #expect(
      try Arguments.parse(["cancel", "--after", "1"])
        == .cancel(CancelOptions(baseURL: nil, after: .milliseconds(1))))
    #expect(
      try Arguments.parse(["cancel", "--after", "60000"])
        == .cancel(CancelOptions(baseURL: nil, after: .seconds(60))))
    #expect(
      try Arguments.parse(["cancel", "--keep"])
        == .cancel(CancelOptions(baseURL: nil, after: nil, keep: true)))
    #expect(
      try Arguments.parse(["cancel", "--keep", "--after", "5"])
        == .cancel(CancelOptions(baseURL: nil, after: .milliseconds(5), keep: true)))
  }

  @Test func benchOptions() throws {
    #expect(try Arguments.parse(["bench"]) == .bench(BenchOptions(json: false, quick: false)))
    #expect(
      try Arguments.parse(["bench", "--quick"]) == .bench(BenchOptions(json: false, quick: true)))
    #expect(
      try Arguments.parse(["bench", "--quick", "--json"])
        == .bench(BenchOptions(json: true, quick: true)))
    #expect(
      try Arguments.parse(["bench", "--fail-on-miss"])
        == .bench(BenchOptions(json: false, quick: false, failOnMiss: true)))
  }

  @Test(arguments: [
    (["--bogus"], UsageError(reason: .unknownOption("--bogus"), command: nil)),
    (["-x"], UsageError(reason: .unknownOption("-x"), command: nil)),
    (["bogus"], UsageError(reason: .unknownCommand("bogus"), command: nil)),
    (["Questions"], UsageError(reason: .unknownCommand("Questions"), command: nil)),
    (["--help", "bogus"], UsageError(reason: .unknownCommand("bogus"), command: nil)),
    (
      ["--help", "questions", "coalesce"],
      UsageError(reason: .unexpectedArgument("coalesce"), command: nil)
    ),
    (["tour", "--json"], UsageError(reason: .unknownOption("--json"), command: .tour)),
    (["tour", "now"], UsageError(reason: .unexpectedArgument("now"), command: .tour)),
    (["help", "bogus"], UsageError(reason: .unknownCommand("bogus"), command: .help)),
    (
      ["help", "questions", "coalesce"],
      UsageError(reason: .unexpectedArgument("coalesce"), command: .help)
    ),
  ])
  func invalidToolArgumentsAreUsageErrors(arguments: [String], expected: UsageError) {
    #expect(throws: expected) { try Arguments.parse(arguments) }
  }

  @Test(arguments: [
    (["--foo"], UsageError.Reason.unknownOption("--foo")),
    (["-j"], .unknownOption("-j")),
    (["--callers", "3"], .unknownOption("--callers")),
    (["latest"], .unexpectedArgument("latest")),
    (["-"], .unexpectedArgument("-")),
    (["--site"], .missingValue(option: "--site")),
    (["--site", "--json"], .missingValue(option: "--site")),
    (["--base-url", "-h2"], .missingValue(option: "--base-url")),
    (["--pagesize"], .missingValue(option: "--pagesize")),
    (["--json=yes"], .unexpectedValue(option: "--json")),
    (["--json", "--json"], .duplicateOption("--json")),
    (["--site", "a", "--site=b"], .duplicateOption("--site")),
    (
      ["--site", ""],
      .invalidValue("", option: "--site", expected: "a site name such as stackoverflow")
    ),
    (
      ["--site", "stack overflow"],
      .invalidValue(
        "stack overflow", option: "--site", expected: "a site name such as stackoverflow")
    ),
    (
      ["--pagesize="], .invalidValue("", option: "--pagesize", expected: "an integer from 1 to 100")
    ),
    (["--pages"], .missingValue(option: "--pages")),
    (["--pages", "2", "--pages", "3"], .duplicateOption("--pages")),
  ])
  func invalidQuestionsArgumentsAreUsageErrors(arguments: [String], reason: UsageError.Reason) {
    #expect(throws: UsageError(reason: reason, command: .questions)) {
      try Arguments.parse(["questions"] + arguments)
    }
  }

  @Test(
    arguments: ["--pagesize", "--pages"],
    ["0", "101", "-3", "ten", "5.0", "", "99999999999999999999"])
  func questionsCountsOutside1To100AreUsageErrors(option: String, value: String) {
    let reason = UsageError.Reason.invalidValue(
      value, option: option, expected: "an integer from 1 to 100")
    #expect(throws: UsageError(reason: reason, command: .questions)) {
      try Arguments.parse(["questions", option, value])
    }
  }

  @Test(arguments: [
    "ftp://example.com", "example.com", "/questions", "http://", "https:///2.3", "file:///tmp",
    "not a url", "",
  ])
  func baseURLMustBeHTTPOrHTTPSWithAHost(text: String) {
    let reason = UsageError.Reason.invalidValue(
      text, option: "--base-url", expected: "an http or https URL with a host")
    for command in [Subcommand.questions, .coalesce, .cancel] {
      #expect(throws: UsageError(reason: reason, command: command)) {
        try Arguments.parse([command.rawValue, "--base-url", text])
      }
    }
  }

  @Test(arguments: [
    (
      ["coalesce", "--callers", "0"],
      UsageError.Reason.invalidValue(
        "0", option: "--callers", expected: "an integer from 1 to 1000")
    ),
    (
      ["coalesce", "--callers", "1001"],
      .invalidValue("1001", option: "--callers", expected: "an integer from 1 to 1000")
    ),
    (
      ["coalesce", "--callers", "-2"],
      .invalidValue("-2", option: "--callers", expected: "an integer from 1 to 1000")
    ),
    (["coalesce", "--callers"], .missingValue(option: "--callers")),
    (["coalesce", "--callers", "2", "--callers", "3"], .duplicateOption("--callers")),
    (["coalesce", "--json"], .unknownOption("--json")),
    (
      ["cancel", "--after", "0"],
      .invalidValue("0", option: "--after", expected: "an integer from 1 to 60000")
    ),
    (
      ["cancel", "--after", "60001"],
      .invalidValue("60001", option: "--after", expected: "an integer from 1 to 60000")
    ),
    (
      ["cancel", "--after", "1s"],
      .invalidValue("1s", option: "--after", expected: "an integer from 1 to 60000")
    ),
    (["cancel", "--after"], .missingValue(option: "--after")),
    (
      ["cancel", "--base-url", "http://a", "--base-url", "http://b"], .duplicateOption("--base-url")
    ),
    (["bench", "--quick", "--quick"], .duplicateOption("--quick")),
    (["bench", "--json=1"], .unexpectedValue(option: "--json")),
    (["bench", "--base-url", "http://a"], .unknownOption("--base-url")),
    (["bench", "quick"], .unexpectedArgument("quick")),
  ])
  func invalidCommandArgumentsAreUsageErrors(arguments: [String], reason: UsageError.Reason) throws
  {
    let command = try #require(Subcommand(rawValue: arguments[0]))
    #expect(throws: UsageError(reason: reason, command: command)) {
      try Arguments.parse(arguments)
    }
  }

  @Test func usageErrorsReadAsOneLineNamingTheCause() {
    #expect(
      UsageError(reason: .unknownOption("--foo"), command: .questions).description
        == "unknown option '--foo'")
    #expect(
      UsageError(reason: .missingValue(option: "--pagesize"), command: .questions).description
        == "missing value for --pagesize")
    #expect(
      UsageError(
        reason: .invalidValue("0", option: "--pagesize", expected: "an integer from 1 to 100"),
        command: .questions
      ).description
        == "invalid value '0' for --pagesize: expected an integer from 1 to 100")
    #expect(
      UsageError(reason: .unknownCommand("x"), command: nil).description == "unknown command 'x'")
    #expect(
      UsageError(reason: .duplicateOption("--json"), command: .questions).helpCommand
        == "bridge-demo questions --help")
    #expect(
      UsageError(reason: .unknownCommand("x"), command: .help).helpCommand == "bridge-demo --help")
  }

  @Test func everyCommandHasHelpNamingItsOptions() {
    #expect(Usage.text(for: nil).contains("USAGE: bridge-demo [<command>] [<options>]"))
    for command in Subcommand.allCases where command != .help {
      #expect(Usage.text(for: nil).contains("  \(command.rawValue) "))
    }
    #expect(Usage.text(for: .questions).contains("--pagesize <n>"))
    #expect(Usage.text(for: .questions).contains("--pages <n>"))
    #expect(Usage.text(for: .coalesce).contains("--callers <n>"))
    #expect(Usage.text(for: .cancel).contains("--after <ms>"))
    #expect(Usage.text(for: .bench).contains("--quick"))
    #expect(Usage.text(for: .tour).contains("USAGE: bridge-demo [tour]"))
  }
}
