#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How long a time-bounded stress loop may run. Under ThreadSanitizer every step is several
/// times slower, and the stress suites, all running at once, would hold every core (and the
/// dispatch pool's threads) for so long that unrelated tests time out waiting for a queue or a
/// socket: there, budgets shrink to a third. The rounds that do run are checked the same way.
public enum StressBudget {
  /// Whether this process runs under ThreadSanitizer (its runtime is loaded).
  public static let isThreadSanitized: Bool =
    dlsym(
      UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

  /// `duration`, or a third of it under ThreadSanitizer.
  public static func scaled(_ duration: Duration) -> Duration {
    isThreadSanitized ? duration / 3 : duration
  }
}
