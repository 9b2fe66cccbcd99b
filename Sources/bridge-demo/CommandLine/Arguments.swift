import Foundation

/// Parses `bridge-demo`'s command line, strictly: every error is a ``UsageError``.
enum Arguments {
  private static let helpFlags: Set<String> = ["--help", "-h"]
  private static let baseURL = OptionScanner.Option(name: "--base-url", takesValue: true)

  /// Parses `arguments` (without the program name).
  ///
  /// No arguments run the tour. `--help` or `-h` anywhere after a command asks for that
  /// command's help, whatever else is there.
  ///
  /// - Throws: ``UsageError``.
  static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
    guard let first = arguments.first else { return .tour }
    let rest = Array(arguments.dropFirst())
    if helpFlags.contains(first) {
      if let extra = rest.first {
        throw UsageError(reason: .unexpectedArgument(extra), command: nil)
      }
      return .help(nil)
    }
    guard let command = Subcommand(rawValue: first) else {
      let reason: UsageError.Reason =
        first.hasPrefix("-") ? .unknownOption(first) : .unknownCommand(first)
      throw UsageError(reason: reason, command: nil)
    }
    if rest.contains(where: helpFlags.contains) { return .help(command) }
    switch command {
    case .tour:
      _ = try OptionScanner(rest, command: .tour, options: [])
      return .tour
    case .questions:
      return .questions(try questions(rest))
    case .coalesce:
      return .coalesce(try coalesce(rest))
    case .cancel:
      return .cancel(try cancel(rest))
    case .bench:
      return .bench(try bench(rest))
    case .help:
      return try help(rest)
    }
  }

  private static func questions(_ arguments: [String]) throws(UsageError) -> QuestionsOptions {
    let scanner = try OptionScanner(
      arguments, command: .questions,
      options: [
        baseURL,
        .init(name: "--site", takesValue: true),
        .init(name: "--pagesize", takesValue: true),
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
      options: [baseURL, .init(name: "--after", takesValue: true)])
    var options = CancelOptions()
    options.baseURL = try url(in: scanner)
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
      ])
    return BenchOptions(json: scanner.flag("--json"), quick: scanner.flag("--quick"))
  }

  private static func help(_ arguments: [String]) throws(UsageError) -> Invocation {
    guard let topic = arguments.first else { return .help(nil) }
    guard arguments.count == 1 else {
      throw UsageError(reason: .unexpectedArgument(arguments[1]), command: .help)
    }
    guard let command = Subcommand(rawValue: topic) else {
      throw UsageError(reason: .unknownCommand(topic), command: .help)
    }
    return .help(command == .help ? nil : command)
  }

  /// The `--base-url` value: an absolute `http` or `https` URL with a host, or nil if absent.
  private static func url(in scanner: OptionScanner) throws(UsageError) -> URL? {
    guard let text = scanner.value("--base-url") else { return nil }
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
    else {
      throw scanner.invalid(
        text, option: "--base-url", expected: "an http or https URL with a host")
    }
    return url
  }
}
