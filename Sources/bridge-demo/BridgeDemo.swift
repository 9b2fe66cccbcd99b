import Benchmarks

/// The entry point: parses the command line, runs the command, returns the exit status.
enum BridgeDemo {
  /// The version `bridge-demo --version` prints.
  static let version = "0.1.0"

  /// Runs `bridge-demo` with `arguments` (without the program name).
  ///
  /// - Returns: The process exit status (see ``ExitCode``).
  static func run(arguments: [String]) async -> Int32 {
    let invocation: Invocation
    do {
      invocation = try Arguments.parse(arguments)
    } catch {
      report(error)
      return ExitCode.usage.rawValue
    }
    switch invocation {
    case .help(let command):
      let width = Terminal.width(of: StandardStream.output.rawValue)
      Console.out(Usage.text(for: command, width: width))
      return ExitCode.success.rawValue
    case .version:
      Console.out("bridge-demo \(version)")
      return ExitCode.success.rawValue
    case .tour:
      return await TourCommand.run().rawValue
    case .questions(let options):
      return await QuestionsCommand.run(options).rawValue
    case .coalesce(let options):
      return await CoalesceCommand.run(options).rawValue
    case .cancel(let options):
      return await CancelCommand.run(options).rawValue
    case .progress(let options):
      return await ProgressCommand.run(options).rawValue
    case .bench(let options):
      return await Benchmark.run(
        json: options.json, quick: options.quick, failOnMiss: options.failOnMiss)
    }
  }

  /// Reports a usage error: what is wrong, the command's usage line, where to read more.
  private static func report(_ error: UsageError) {
    Console.error("error: \(error.description)")
    let width = Terminal.width(of: StandardStream.error.rawValue)
    Usage.usageLines(for: error.command, width: width).forEach(Console.error)
    Console.error("see '\(error.helpCommand)'")
  }
}
