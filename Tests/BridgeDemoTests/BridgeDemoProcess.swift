import Dispatch
import Foundation
import OperationCore
import Testing

/// What a run of the `bridge-demo` executable produced.
struct ProcessOutput: Sendable {
  let status: Int32
  let stdout: String
  let stderr: String
  /// How long the process ran.
  let elapsed: Duration

  /// Standard error's lines, without the `bridge-demo: …` progress lines.
  var errorLines: [String] {
    stderr.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("bridge-demo: ") }
  }
}

/// Runs the real `bridge-demo` binary as a subprocess.
enum BridgeDemoProcess {
  /// Where the process's standard output and standard error go.
  enum Streams {
    /// Each to its own pipe.
    case separate
    /// Standard output to a pipe whose read end is closed before the process starts, so every
    /// write gets `EPIPE` (or `SIGPIPE`); standard error to its own pipe.
    case readerless
    /// Through `/bin/sh`, with `redirections` (e.g. `2>&-`) applied to the command; standard
    /// output and standard error to their own pipes before that.
    case shell(redirections: String)
  }

  /// The executable SwiftPM built next to this test bundle, in the build products directory.
  static let executable: URL? = {
    var directories: [URL] = []
    if let executable = Bundle.main.executableURL {
      directories.append(executable.deletingLastPathComponent())
    }
    // On Darwin the tests run inside `OperationBridgePackageTests.xctest`, beside the products.
    directories += Bundle.allBundles.filter { $0.bundleURL.pathExtension == "xctest" }.map {
      $0.bundleURL.deletingLastPathComponent()
    }
    directories.append(Bundle.main.bundleURL)
    return directories.map { $0.appendingPathComponent("bridge-demo") }.first {
      FileManager.default.isExecutableFile(atPath: $0.path)
    }
  }()

  /// Runs `bridge-demo` with `arguments`; the process is killed if it runs longer than
  /// `timeout`, which the test then reports.
  static func run(
    _ arguments: [String], timeout: Duration = .seconds(15), streams: Streams = .separate,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> ProcessOutput {
    let executable = try #require(
      executable, "bridge-demo was not built next to the tests", sourceLocation: sourceLocation)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    switch streams {
    case .separate:
      break
    case .readerless:
      var ends: [Int32] = [0, 0]
      try #require(pipe(&ends) == 0, sourceLocation: sourceLocation)
      close(ends[0])
      process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
      try? stdout.fileHandleForWriting.close()
    case .shell(let redirections):
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", "exec \"$0\" \"$@\" \(redirections)", executable.path] + arguments
    }
    process.standardInput = FileHandle.nullDevice

    let exited = ExitSignal()
    process.terminationHandler = { _ in exited.fire() }
    let start = ContinuousClock.now
    try process.run()
    if case .readerless = streams, let handle = process.standardOutput as? FileHandle {
      try handle.close()
    }
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds(timeout), execute: killer)
    async let output = readToEnd(stdout)
    async let errors = readToEnd(stderr)
    let (out, err) = await (output, errors)
    await exited.wait()
    let elapsed = ContinuousClock.now - start
    killer.cancel()
    #expect(
      process.terminationReason == .exit, "bridge-demo \(arguments) did not exit by itself",
      sourceLocation: sourceLocation)
    return ProcessOutput(
      status: process.terminationStatus, stdout: out, stderr: err, elapsed: elapsed)
  }

  /// Everything written to `pipe`, read on a dispatch thread so no task thread blocks.
  private static func readToEnd(_ pipe: Pipe) async -> String {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        continuation.resume(returning: String(decoding: data, as: UTF8.self))
      }
    }
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
  }
}

/// Signals, once, that a process exited; the wait may start before or after that.
private final class ExitSignal: Sendable {
  private struct State {
    var hasFired = false
    var waiter: CheckedContinuation<Void, Never>?
  }

  private let state = Locked(State())

  /// Resumes the waiter, now or as soon as it waits.
  func fire() {
    let waiter = state.withLock { state in
      state.hasFired = true
      return state.waiter.take()
    }
    waiter?.resume()
  }

  /// Returns once `fire()` was called.
  func wait() async {
    await withCheckedContinuation { continuation in
      let hasFired = state.withLock { state in
        if !state.hasFired { state.waiter = continuation }
        return state.hasFired
      }
      if hasFired { continuation.resume() }
    }
  }
}
