#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A value and the `pthread_mutex_t` that guards it, in one allocation.
///
/// The server's own lock, so that this target does not depend on the library it serves tests
/// for. A pthread mutex rather than `Synchronization.Mutex`: ThreadSanitizer on Linux does not
/// see `Mutex`'s futex hand-off and reports false races (see docs/PLATFORM-NOTES.md). Touch
/// the value only inside ``withLock(_:)`` and call nothing out from there.
struct LockedBox<Value> {
  // `Value` lives in the buffer's header, guarded by the mutex stored as its element.
  private final class Buffer: ManagedBuffer<Value, pthread_mutex_t> {
    // The header is destroyed by ManagedBuffer; the mutex is ours to destroy.
    deinit {
      _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
    }
  }

  private let buffer: Buffer

  /// Creates a box holding `value`.
  init(_ value: Value) {
    buffer = unsafeDowncast(Buffer.create(minimumCapacity: 1) { _ in value }, to: Buffer.self)
    buffer.withUnsafeMutablePointerToElements { mutex in
      // Fails only without memory for the mutex's attributes, which default attributes need not.
      _ = pthread_mutex_init(mutex, nil)
    }
  }

  /// Runs `body` with exclusive access to the value and returns what it returns.
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try buffer.withUnsafeMutablePointers { value, mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&value.pointee)
    }
  }
}

// The value is reached only under the mutex, so sharing the box is safe when the value may be
// sent between threads.
extension LockedBox: @unchecked Sendable where Value: Sendable {}
