import Foundation

/// Parses `bridge-demo`'s command line, strictly: every error is a ``UsageError``.
enum Arguments {
  private static let helpFlags: Set<String> = ["--help", "-h"]
  private static let baseURL = OptionScanner.Option(name: "--base-url", takesValue: true)

  /// Parses `arguments` (without the program name).
  ///
  /// No arguments run the tour. `--help` or `-h` anywhere after a command asks for that
  /// command's help, whatever else is there; before a command, it asks for that command's
  /// help. `--` ends the options: after it, even `--help` is an operand (and no command takes
  /// operands), and before the command it makes the next argument the command's name.
  ///
  /// - Throws: ``UsageError``.
  static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
    guard let first = arguments.first else { return .tour }
    let rest = Array(arguments.dropFirst())
    if first == "--version" {
      if let extra = rest.first {
        throw UsageError(reason: .unexpectedArgument(extra), command: nil)
      }
      return .version
    }
    if helpFlags.contains(first) {
      return try help(rest, command: nil)
    }
    if first == "--" {
      guard let name = rest.first else { return .tour }
      let command = try subcommand(named: name, command: nil)
      return try parse(command, ["--"] + rest.dropFirst())
    }
    guard !first.hasPrefix("-") else {
      throw UsageError(reason: .unknownOption(first), command: nil)
    }
    let command = try subcommand(named: first, command: nil)
    if rest.prefix(while: { $0 != "--" }).contains(where: helpFlags.contains) {
      return .help(command)
    }
    return try parse(command, rest)
  }

  /// Parses the arguments after `command`'s name.
  private static func parse(
    _ command: Subcommand, _ arguments: [String]
  ) throws(UsageError) -> Invocation {
    switch command {
    case .tour:
      _ = try OptionScanner(arguments, command: .tour, options: [])
      return .tour
    case .questions:
      return .questions(try questions(arguments))
    case .coalesce:
      return .coalesce(try coalesce(arguments))
    case .cancel:
      return .cancel(try cancel(arguments))
    case .progress:
      let scanner = try OptionScanner(
        arguments, command: .progress, options: [baseURL, .init(name: "--json", takesValue: false)])
      return .progress(ProgressOptions(baseURL: try url(in: scanner), json: scanner.flag("--json")))
    case .bench:
      return .bench(try bench(arguments))
    case .help:
      return try help(arguments, command: .help)
    }
  }

  /// The command called `name`.
  ///
  /// - Throws: ``UsageError`` when there is none, reported for `command`.
  private static func subcommand(
    named name: String, command: Subcommand?
  ) throws(UsageError) -> Subcommand {
    guard let subcommand = Subcommand(rawValue: name) else {
      throw UsageError(reason: .unknownCommand(name), command: command)
    }
    return subcommand
  }

  private static func questions(_ arguments: [String]) throws(UsageError) -> QuestionsOptions {
    let scanner = try OptionScanner(
      arguments, command: .questions,
      options: [
        baseURL,
        .init(name: "--site", takesValue: true),
        .init(name: "--pagesize", takesValue: true),
        .init(name: "--pages", takesValue: true),
        .init(name: "--json", takesValue: false),
      ])
    var options = QuestionsOptions()
    options.baseURL = try url(in: scanner)
    if let site = scanner.value("--site") {
      guard !site.isEmpty, !site.contains(where: \.isWhitespace) else {
        throw scanner.invalid(site, option: "--site", expected: "a site name such as stackoverflow")
      }
      options.site = site
    }
    options.pageSize = try scanner.integer("--pagesize", in: 1...100) ?? options.pageSize
    options.pages = try scanner.integer("--pages", in: 1...100)
    options.json = scanner.flag("--json")
    return options
  }

  private static func coalesce(_ arguments: [String]) throws(UsageError) -> CoalesceOptions {
    let scanner = try OptionScanner(
      arguments, command: .coalesce,
      options: [baseURL, .init(name: "--callers", takesValue: true)])
    var options = CoalesceOptions()
    options.baseURL = try url(in: scanner)
    options.callers = try scanner.integer("--callers", in: 1...1_000) ?? options.callers
    return options
  }

  private static func cancel(_ arguments: [String]) throws(UsageError) -> CancelOptions {
    let scanner = try OptionScanner(
      arguments, command: .cancel,
      options: [
        baseURL, .init(name: "--after", takesValue: true), .init(name: "--keep", takesValue: false),
      ])
    var options = CancelOptions()
    options.baseURL = try url(in: scanner)
    options.keep = scanner.flag("--keep")
    if let milliseconds = try scanner.integer("--after", in: 1...60_000) {
      options.after = .milliseconds(milliseconds)
    }
    return options
  }

  private static func bench(_ arguments: [String]) throws(UsageError) -> BenchOptions {
    let scanner = try OptionScanner(
      arguments, command: .bench,
      options: [
        .init(name: "--json", takesValue: false), .init(name: "--quick", takesValue: false),
        .init(name: "--fail-on-miss", takesValue: false),
      ])
    return BenchOptions(
      json: scanner.flag("--json"), quick: scanner.flag("--quick"),
      failOnMiss: scanner.flag("--fail-on-miss"))
  }

  /// The help topic in `arguments` (after `help`, or after `--help` before any command, where
  /// `command` is nil): none, or one command name, optionally after `--`.
  private static func help(
    _ arguments: [String], command: Subcommand?
  ) throws(UsageError) -> Invocation {
    let operands = arguments.first == "--" ? Array(arguments.dropFirst()) : arguments
    guard let topic = operands.first else { return .help(nil) }
    guard operands.count == 1 else {
      throw UsageError(reason: .unexpectedArgument(operands[1]), command: command)
    }
    if topic.hasPrefix("-"), arguments.first != "--" {
      throw UsageError(reason: .unknownOption(topic), command: command)
    }
    let subcommand = try subcommand(named: topic, command: command)
    return .help(subcommand == .help ? nil : subcommand)
  }

  /// The `--base-url` value (see ``BaseURL/parse(_:)``), or nil if absent.
  private static func url(in scanner: OptionScanner) throws(UsageError) -> URL? {
    guard let text = scanner.value("--base-url") else { return nil }
    do {
      return try BaseURL.parse(text)
    } catch {
      throw scanner.invalid(text, option: "--base-url", expected: error.expected)
    }
  }
}
