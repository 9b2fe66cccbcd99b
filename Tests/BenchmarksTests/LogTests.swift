import Foundation
import Testing

@testable import Benchmarks

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Progress logging survives a standard error that is closed or cannot be written: the
/// suite must not trap on it (`FileHandle.write` does).
@Suite struct LogTests {
  /// The claim is only that the call returns: a trap fails the whole test process.
  @Test func loggingToAClosedDescriptorDoesNotTrap() {
    // -1 is never open: the write fails with EBADF, as with `2>&-`. (Closing the real
    // standard error would race the other suites in this process.)
    Benchmark.log("bench: written to a closed descriptor", to: -1)
  }

  /// The claim is only that the call returns: a trap fails the whole test process.
  @Test func loggingToAFullDeviceDoesNotTrap() throws {
    let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
    try #require(full >= 0)
    defer { close(full) }

    Benchmark.log("bench: written to a full device", to: full)
  }
}
