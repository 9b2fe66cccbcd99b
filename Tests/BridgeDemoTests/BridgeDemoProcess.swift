import Dispatch
import Foundation
import LockedValue
import OperationCore
import TestSupport
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
    /// Both to one pseudo-terminal `columns` wide, read back as `stdout` (with the terminal's
    /// `\r\n` line ends turned back into `\n`); `stderr` is empty.
    case terminal(columns: Int)
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
  /// `timeout` (a bound on a hang, generous enough for a ThreadSanitizer run that shares both
  /// cores with the stress suites), which the test then reports.
  ///
  /// Waits first for one of the few slots demo processes run in (``ProcessSlots``).
  static func run(
    _ arguments: [String], timeout: Duration = .seconds(60), streams: Streams = .separate,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> ProcessOutput {
    try await ProcessSlots.demo.run {
      try await runInSlot(
        arguments, timeout: timeout, streams: streams, sourceLocation: sourceLocation)
    }
  }

  /// ``run(_:timeout:streams:sourceLocation:)`` once it holds a slot.
  private static func runInSlot(
    _ arguments: [String], timeout: Duration, streams: Streams, sourceLocation: SourceLocation
  ) async throws -> ProcessOutput {
    let executable = try #require(
      executable, "bridge-demo was not built next to the tests", sourceLocation: sourceLocation)
    let process = Process()
    var terminal: PseudoTerminal?
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
      // Close-on-exec at once (Glibc's module has no pipe2), so that only this test's child gets
      // the write end (as its output).
      _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
      close(ends[0])
      process.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
      try? stdout.fileHandleForWriting.close()
    case .shell(let redirections):
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", "exec \"$0\" \"$@\" \(redirections)", executable.path] + arguments
    case .terminal(let columns):
      terminal = try PseudoTerminal(columns: columns)
      let handle = FileHandle(fileDescriptor: terminal!.secondary, closeOnDealloc: false)
      process.standardOutput = handle
      process.standardError = handle
      try? stdout.fileHandleForWriting.close()
      try? stderr.fileHandleForWriting.close()
    }
    process.standardInput = FileHandle.nullDevice

    let exited = Gate()
    process.terminationHandler = { _ in exited.open() }
    let start = ContinuousClock.now
    try process.run()
    if case .readerless = streams, let handle = process.standardOutput as? FileHandle {
      try handle.close()
    }
    terminal?.closeSecondary()
    let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds, execute: killer)
    async let output = readToEnd(terminal?.primary ?? stdout.fileHandleForReading.fileDescriptor)
    async let errors = readToEnd(stderr.fileHandleForReading.fileDescriptor)
    var (out, err) = await (output, errors)
    if let terminal {
      terminal.closePrimary()
      out = out.replacingOccurrences(of: "\r\n", with: "\n")
    }
    let didExit = await exited.wait()
    let elapsed = ContinuousClock.now - start
    killer.cancel()
    guard didExit else {
      Issue.record(
        "bridge-demo \(arguments) closed its output but did not exit",
        sourceLocation: sourceLocation)
      return ProcessOutput(status: -1, stdout: out, stderr: err, elapsed: elapsed)
    }
    #expect(
      process.terminationReason == .exit, "bridge-demo \(arguments) did not exit by itself",
      sourceLocation: sourceLocation)
    return ProcessOutput(
      status: process.terminationStatus, stdout: out, stderr: err, elapsed: elapsed)
  }

  /// Everything read from `descriptor` until the end of the file (or, for a terminal, until
  /// the process closed its side), read on a thread of its own so that neither a task thread
  /// nor a thread of dispatch's pool blocks.
  private static func readToEnd(_ descriptor: Int32) async -> String {
    await onOwnThread {
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { break }
        bytes += buffer[..<count]
      }
      return String(decoding: bytes, as: UTF8.self)
    }
  }
}

/// A pseudo-terminal pair: the process writes to the secondary side, the test reads the
/// primary side. Linux only: it opens `/dev/ptmx` and unlocks and names the secondary side with
/// `ioctl`s (Glibc's module does not export `posix_openpt` and friends).
struct PseudoTerminal: Sendable {
  struct Failure: Error {
    let call: String
  }

  /// Whether this platform has them.
  static let isAvailable = FileManager.default.fileExists(atPath: "/dev/ptmx")

  // _IOW('T', 0x31, int) and _IOR('T', 0x30, unsigned int) from <asm-generic/ioctls.h>.
  private static let unlock: UInt = 0x4004_5431
  private static let number: UInt = 0x8004_5430

  let primary: Int32
  let secondary: Int32

  /// Opens a pair whose window is `columns` wide.
  init(columns: Int) throws {
    primary = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    var unlocked: Int32 = 0
    var index: UInt32 = 0
    guard primary >= 0, ioctl(primary, Self.unlock, &unlocked) == 0,
      ioctl(primary, Self.number, &index) == 0
    else { throw Failure(call: "open /dev/ptmx") }
    var size = winsize()
    size.ws_col = UInt16(columns)
    size.ws_row = 24
    guard ioctl(primary, UInt(TIOCSWINSZ), &size) == 0 else { throw Failure(call: "TIOCSWINSZ") }
    secondary = open("/dev/pts/\(index)", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard secondary >= 0 else { throw Failure(call: "open /dev/pts/\(index)") }
  }

  /// Closes the test's copy of the secondary side, so that reads end once the process exits.
  func closeSecondary() {
    close(secondary)
  }

  /// Closes the primary side, once everything was read.
  func closePrimary() {
    close(primary)
  }
}
