/// Reads one command's options strictly: `--name value`, `--name=value` and `--flag`, each at
/// most once, no positional arguments. `--` ends the options; since no command takes operands,
/// anything after it is an unexpected argument.
struct OptionScanner {
  /// An option a command accepts.
  struct Option: Hashable {
    /// The option as typed, e.g. `--site`.
    let name: String
    /// Whether it takes a value (`--site so`) or is a flag (`--json`).
    let takesValue: Bool
  }

  /// The values given, by option name; flags map to an empty string.
  private var values: [String: String] = [:]
  private let command: Subcommand

  /// Scans `arguments` for `command`, which accepts `options`.
  ///
  /// - Throws: ``UsageError`` for an unknown or repeated option, a missing or unexpected
  ///   value, or a positional argument.
  init(_ arguments: [String], command: Subcommand, options: [Option]) throws(UsageError) {
    self.command = command
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      if argument == "--" {
        guard let operand = remaining.first else { break }
        throw UsageError(reason: .unexpectedArgument(operand), command: command)
      }
      guard argument.hasPrefix("-"), argument.count > 1 else {
        throw UsageError(reason: .unexpectedArgument(argument), command: command)
      }
      let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(parts[0])
      let inlineValue = parts.count == 2 ? String(parts[1]) : nil
      guard let option = options.first(where: { $0.name == name }) else {
        throw UsageError(reason: .unknownOption(name), command: command)
      }
      guard values[name] == nil else {
        throw UsageError(reason: .duplicateOption(name), command: command)
      }
      if !option.takesValue {
        guard inlineValue == nil else {
          throw UsageError(reason: .unexpectedValue(option: name), command: command)
        }
        values[name] = ""
      } else if let inlineValue {
        values[name] = inlineValue
      } else if let next = remaining.first, !Self.looksLikeOption(next) {
        values[name] = next
        remaining.removeFirst()
      } else {
        throw UsageError(reason: .missingValue(option: name), command: command)
      }
    }
  }

  /// Whether `flag` was given.
  func flag(_ flag: String) -> Bool {
    values[flag] != nil
  }

  /// The value of `option`, or nil if it was not given.
  func value(_ option: String) -> String? {
    values[option]
  }

  /// The value of `option` as an integer in `range`, or nil if it was not given.
  ///
  /// - Throws: ``UsageError`` when the value is not an integer in `range`.
  func integer(_ option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = values[option] else { return nil }
    guard let number = Int(text), range.contains(number) else {
      throw invalid(
        text, option: option,
        expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }

  /// A usage error for a malformed value of `option`.
  func invalid(_ value: String, option: String, expected: String) -> UsageError {
    UsageError(reason: .invalidValue(value, option: option, expected: expected), command: command)
  }

  /// An argument that starts an option (`--x`, `-h`), as opposed to a value such as `-5`.
  private static func looksLikeOption(_ argument: String) -> Bool {
    argument.hasPrefix("--")
      || (argument.hasPrefix("-") && !argument.dropFirst().allSatisfy(\.isNumber))
  }
}
