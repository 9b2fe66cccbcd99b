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

  /// One line without the `error: ` prefix, e.g. `unknown option '--foo' for 'questions'`.
  var description: String {
    let context = command.map { " for '\($0.rawValue)'" } ?? ""
    switch reason {
    case .unknownCommand(let name):
      return "unknown command '\(name)'"
    case .unknownOption(let option):
      return "unknown option '\(option)'\(context)"
    case .unexpectedArgument(let argument):
      return "unexpected argument '\(argument)'\(context)"
    case .missingValue(let option):
      return "missing value for '\(option)'\(context)"
    case .unexpectedValue(let option):
      return "option '\(option)'\(context) takes no value"
    case .invalidValue(let value, let option, let expected):
      let qualified = command.map { "\($0.rawValue) \(option)" } ?? option
      return "invalid value '\(value)' for '\(qualified)': expected \(expected)"
    case .duplicateOption(let option):
      return "option '\(option)' given twice\(context)"
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
