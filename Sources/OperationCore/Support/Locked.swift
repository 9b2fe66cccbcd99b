#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A value guarded by a `pthread_mutex_t`, both in one allocation.
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer on Linux does not see
/// `Mutex`'s futex-based synchronisation and reports false races (and exits with 66), which
/// would hide real races. ThreadSanitizer intercepts pthread mutexes, so this lock keeps the
/// sanitizer's verdict meaningful. Access the value only inside ``withLock(_:)`` and never
/// call out (handlers, resumes, KVO) from inside it.
@usableFromInline
package struct Locked<State> {
  // The state lives in `storage`, guarded by the mutex stored beside it.
  @usableFromInline
  final class Storage: ManagedBuffer<State, pthread_mutex_t> {
    // ManagedBuffer destroys the header (the state) itself; the mutex is ours to destroy.
    deinit {
      _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
    }
  }

  @usableFromInline
  let storage: Storage

  /// Creates a lock guarding `initialState`. Inlinable, so a lock built in generic code is
  /// specialised where the state's type is known and finds its storage's metadata in a cache.
  @inlinable
  package init(_ initialState: @autoclosure () -> State) {
    // Built in place: a state passed in by value would be copied into the buffer, then
    // destroyed, once per operation for an operation's state.
    let buffer = Storage.create(minimumCapacity: 1) { _ in initialState() }
    storage = unsafeDowncast(buffer, to: Storage.self)
    storage.withUnsafeMutablePointerToElements { mutex in
      let status = pthread_mutex_init(mutex, nil)
      precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }
  }

  /// Runs `body` with exclusive access to the state.
  @inline(__always)
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try storage.withUnsafeMutablePointers { state, mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&state.pointee)
    }
  }
}

// The state is reached only through `withLock`, under the mutex: sharing the box across
// threads is safe whenever the state itself may cross them.
extension Locked: @unchecked Sendable where State: Sendable {}
