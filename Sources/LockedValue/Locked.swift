#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A value guarded by a `pthread_mutex_t`, both in one allocation: the package's one lock box.
///
/// A pthread mutex rather than `Synchronization.Mutex`: ThreadSanitizer on Linux does not see
/// `Mutex`'s futex hand-off and reports false races (and exits with 66), which would hide real
/// races; it intercepts pthread mutexes, so the sanitizer's verdict stays meaningful. Touch the
/// value only inside ``withLock(_:)`` and never call out from there (handlers, resumes, KVO,
/// `super.cancel()`, `URLSessionTask.cancel()`): decide under the lock, act after it.
///
/// **Lock order: manager → operation → subscriber buffer; any of them → scheduler → test
/// clock; nothing else nests.** A manager holds its lock while it joins a request to an
/// operation or claims one (taking that operation's lock); an operation holds its lock while it
/// publishes an event (taking each subscriber buffer's lock). A scheduler's lock may be taken
/// under any other, to set or take out a timer; under it, a scheduler only asks its driver to
/// wake it, which for a test clock takes that clock's lock and nothing more. Never the other
/// way round, and no other lock is taken while one is held: the event hub's subscriber list, a
/// networking operation's, a session delegate's, the fixture server's and every other lock are
/// taken with none held, and take none.
///
/// **No lock is held across a key-value notification** or a Foundation write that sends one on
/// Apple platforms (there a key-value observer runs inside the setter, under whatever lock the
/// writer holds): an operation's `queuePriority` and `qualityOfService`, a queue's `isSuspended`, a
/// dependency added or removed, and an operation's own `isExecuting`, `isFinished` and
/// `isCancelled` notifications. Such a write is decided under the lock and made after it; where
/// decisions race, a version read again after the write makes the newest decision the last
/// one written.
///
/// In debug builds the mutex checks its use (`PTHREAD_MUTEX_ERRORCHECK`): a thread that takes a
/// lock it holds stops the process with a message at once, where a release build would deadlock.
@usableFromInline
package struct Locked<Value> {
  // The value lives in the buffer's header, guarded by the mutex stored as its element.
  @usableFromInline
  final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
    // ManagedBuffer destroys the header (the value) itself; the mutex is ours to destroy.
    deinit {
      let status = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
      precondition(status == 0, "pthread_mutex_destroy failed")
    }
  }

  @usableFromInline
  let storage: Storage

  /// Creates a lock guarding `initialValue`. Inlinable, so a lock built in generic code is
  /// specialised where the value's type is known and finds its storage's metadata in a cache;
  /// the value is built in place rather than copied into the buffer.
  @inlinable
  package init(_ initialValue: @autoclosure () -> Value) {
    let buffer = Storage.create(minimumCapacity: 1) { _ in initialValue() }
    storage = unsafeDowncast(buffer, to: Storage.self)
    let status = storage.withUnsafeMutablePointerToElements { Self.initialize($0) }
    precondition(status == 0, "pthread_mutex_init failed")
  }

  /// Initialises `mutex`: error-checking in debug builds, the default kind otherwise.
  @usableFromInline
  static func initialize(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) -> Int32 {
    #if DEBUG
      var attributes = pthread_mutexattr_t()
      guard pthread_mutexattr_init(&attributes) == 0 else { return -1 }
      defer { pthread_mutexattr_destroy(&attributes) }
      guard pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK)) == 0 else {
        return -1
      }
      return pthread_mutex_init(mutex, &attributes)
    #else
      return pthread_mutex_init(mutex, nil)
    #endif
  }

  /// Runs `body` with exclusive access to the value and returns what it returns. Inlinable, so
  /// callers in other modules get `body` specialised and inlined as callers in this one would.
  @inlinable
  @inline(__always)
  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try storage.withUnsafeMutablePointers { value, mutex in
      let locked = pthread_mutex_lock(mutex)
      precondition(locked != EDEADLK, "Locked.withLock re-entered by the thread that holds it")
      precondition(locked == 0, "pthread_mutex_lock failed")
      defer {
        let unlocked = pthread_mutex_unlock(mutex)
        precondition(unlocked == 0, "pthread_mutex_unlock failed")
      }
      return try body(&value.pointee)
    }
  }
}

// The value is reached only through `withLock`, under the mutex: sharing the box across threads
// is safe whenever the value itself may cross them.
extension Locked: @unchecked Sendable where Value: Sendable {}
