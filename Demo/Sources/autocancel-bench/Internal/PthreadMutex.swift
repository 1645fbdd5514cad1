#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A plain `pthread_mutex_t` at a stable heap address: the lock of the `naive` and
/// `origin-port` bags, so that every baseline pays for the same kind of lock.
///
/// Safety: the mutex is only touched through `pthread_mutex_*`, which are thread-safe.
final class PthreadMutex: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  init() {
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  @inline(__always)
  func lock() { pthread_mutex_lock(mutex) }

  @inline(__always)
  func unlock() { pthread_mutex_unlock(mutex) }
}
