import OperationCore

#if DEBUG
  /// The continuation of a task awaiting an operation: checked in debug builds.
  ///
  /// The test suite runs in debug builds, so every await it makes is checked: a second resume
  /// traps, and a waiter dropped without a resume is reported as leaked.
  typealias WaiterContinuation = CheckedContinuation<ErasedOutcome, Never>
#else
  /// The continuation of a task awaiting an operation: unchecked in release builds.
  ///
  /// Exactly-once resumption follows from ownership (see ``AwaitedWaiter``) and is checked by
  /// the whole test suite in debug builds. Checking it again on every release await would cost
  /// an allocation and a runtime-sized continuation, about 1,000 instructions.
  typealias WaiterContinuation = UnsafeContinuation<ErasedOutcome, Never>
#endif

/// Suspends the calling task and hands `body` its ``WaiterContinuation``.
@inline(__always)
func withWaiterContinuation(
  _ body: (WaiterContinuation) -> Void
) async -> ErasedOutcome {
  #if DEBUG
    await withCheckedContinuation(body)
  #else
    await withUnsafeContinuation(body)
  #endif
}
