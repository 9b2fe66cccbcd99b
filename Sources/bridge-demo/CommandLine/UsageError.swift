/// Why a command line is not valid; reported on one line, with exit status 64.
struct UsageError: Error, Equatable, CustomStringConvertible {
  /// What is wrong.
  enum Reason: Equatable {
    /// The first argument names no command.
    case unknownCommand(String)
    /// An option the command does not have.
    case unknownOption(String)
    /// An argument that is neither an option nor an option's value.
    case unexpectedArgument(String)
    /// An option that needs a value is last, or followed by another option.
    case missingValue(option: String)
    /// A flag was given a value (`--json=yes`).
    case unexpectedValue(option: String)
    /// An option's value is malformed or out of range.
    case invalidValue(String, option: String, expected: String)
    /// An option was given twice.
    case duplicateOption(String)
  }

  /// What is wrong.
  let reason: Reason
  /// The command whose arguments are wrong; nil for the tool's own.
  let command: Subcommand?

  /// One line without the `error: ` prefix, e.g. `missing value for --pagesize`. It names no
  /// command: the usage line printed after it does.
  var description: String {
    switch reason {
    case .unknownCommand(let name): "unknown command '\(name)'"
    case .unknownOption(let option): "unknown option '\(option)'"
    case .unexpectedArgument(let argument): "unexpected argument '\(argument)'"
    case .missingValue(let option): "missing value for \(option)"
    case .unexpectedValue(let option): "\(option) takes no value"
    case .invalidValue(let value, let option, let expected):
      "invalid value '\(value)' for \(option): expected \(expected)"
    case .duplicateOption(let option): "\(option) given twice"
    }
  }

  /// The command line that shows the relevant help.
  var helpCommand: String {
    switch command {
    case nil, .help?: "bridge-demo --help"
    case let command?: "bridge-demo \(command.rawValue) --help"
    }
  }
}
