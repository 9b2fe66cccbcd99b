import Benchmarks

/// The entry point: parses the command line, runs the command, returns the exit status.
enum BridgeDemo {
  /// Runs `bridge-demo` with `arguments` (without the program name).
  ///
  /// - Returns: The process exit status (see ``ExitCode``).
  static func run(arguments: [String]) async -> Int32 {
    let invocation: Invocation
    do {
      invocation = try Arguments.parse(arguments)
    } catch {
      Console.error("error: \(error.description) (see '\(error.helpCommand)')")
      return ExitCode.usage.rawValue
    }
    switch invocation {
    case .help(let command):
      Console.out(Usage.text(for: command))
      return ExitCode.success.rawValue
    case .tour:
      return await TourCommand.run().rawValue
    case .questions(let options):
      return await QuestionsCommand.run(options).rawValue
    case .coalesce(let options):
      return await CoalesceCommand.run(options).rawValue
    case .cancel(let options):
      return await CancelCommand.run(options).rawValue
    case .bench(let options):
      return await Benchmark.run(json: options.json, quick: options.quick)
    }
  }
}
