import Benchmarks
import Dispatch
import Foundation

/// Runs one counted path of the benchmark suite once: `instruction-counts <path> <count>`.
/// Meant to run under `valgrind --tool=callgrind`, at two counts, by `.ci/count-instructions`.
///
/// The main thread blocks on a semaphore instead of being an `async` main: valgrind 3.19 stops
/// with an internal error when an `async` main's thread parks in the Dispatch main loop.
@main
enum InstructionCounts {
  static func main() throws {
    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.count == 2, let path = Benchmark.CountedPath(rawValue: arguments.first!),
      let count = Int(arguments.last!), count > 0
    else {
      let paths = Benchmark.CountedPath.allCases.map(\.rawValue).joined(separator: "|")
      FileHandle.standardError.write(Data("usage: instruction-counts <\(paths)> <count>\n".utf8))
      exit(64)
    }
    let done = DispatchSemaphore(value: 0)
    Task.detached {
      do {
        try await path.run(count: count)
      } catch {
        FileHandle.standardError.write(Data("instruction-counts: \(error)\n".utf8))
        exit(1)
      }
      done.signal()
    }
    done.wait()
  }
}
