// The one place where the core touches platform C libraries.
//
// Synchronization's `Mutex` ships on Apple platforms from iOS 18 / macOS 15 only, so the
// core uses the platform's own primitive: `os_unfair_lock` on Apple platforms and
// `pthread_mutex_t` elsewhere. Both live inside a heap allocation that never moves, as
// neither may be copied once in use.

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#else
  #error("AutoCancel needs a platform lock: Darwin, Glibc, Musl or Android.")
#endif

#if canImport(Darwin)
  /// The platform's non-recursive lock.
  typealias LockPrimitive = os_unfair_lock
#else
  /// The platform's non-recursive lock.
  typealias LockPrimitive = pthread_mutex_t
#endif

extension UnsafeMutablePointer where Pointee == LockPrimitive {
  /// Prepares the lock at this address; call once before any other use.
  func initializeLock() {
    #if canImport(Darwin)
      initialize(to: os_unfair_lock())
    #else
      initialize(to: pthread_mutex_t())
      let result = pthread_mutex_init(self, nil)
      precondition(result == 0, "pthread_mutex_init failed: \(result)")
    #endif
  }

  /// Tears the lock down; call once, when nobody can use it any more.
  func deinitializeLock() {
    #if !canImport(Darwin)
      let result = pthread_mutex_destroy(self)
      precondition(result == 0, "pthread_mutex_destroy failed: \(result)")
    #endif
    deinitialize(count: 1)
  }

  @inline(__always)
  func lock() {
    #if canImport(Darwin)
      os_unfair_lock_lock(self)
    #else
      pthread_mutex_lock(self)
    #endif
  }

  @inline(__always)
  func unlock() {
    #if canImport(Darwin)
      os_unfair_lock_unlock(self)
    #else
      pthread_mutex_unlock(self)
    #endif
  }
}

/// A value guarded by the platform lock.
///
/// Reference semantics: references share one value and one lock. The lock is not recursive:
/// `body` must not call back into the same `Locked`, and must not run user code, cancel work
/// or resume continuations (decide under the lock, act after it).
///
/// Subclasses (the bag's core, a task's cancellation state) add behaviour, never stored
/// properties: everything lives in `State`.
///
/// Package access: the package's other targets share this lock rather than bring their own,
/// so that ThreadSanitizer sees every lock the tests reach.
@usableFromInline
package class Locked<State: Sendable>: @unchecked Sendable {
  // Safety: the value is only touched inside `withLock`, under the lock. Both live in one
  // heap block at a fixed address for the object's whole life; reaching the value through a
  // pointer (not a stored `var`) also spares every access a dynamic exclusivity check, which
  // the lock makes redundant.
  private struct Storage {
    var state: State
    var lock: LockPrimitive
  }

  private let storage: UnsafeMutablePointer<Storage>
  // Both addresses are computed once: a key-path offset per call costs debug builds dearly.
  private let statePointer: UnsafeMutablePointer<State>
  private let lockPointer: UnsafeMutablePointer<LockPrimitive>

  /// Creates a lock guarding `initial`.
  ///
  /// A convenience initializer, so that the package's other targets can create a `Locked`
  /// while the core's internal subclasses call the designated ``init(state:)``: Swift 6.3
  /// reports a false "infinite recursion" for an internal subclass of a `package` class whose
  /// designated initializer is `package`.
  package convenience init(_ initial: State) {
    self.init(state: initial)
  }

  /// Creates a lock guarding `initial`; the initializer subclasses call.
  init(state initial: State) {
    storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)
    let raw = UnsafeMutableRawPointer(storage)
    statePointer = raw.advanced(by: MemoryLayout<Storage>.offset(of: \.state)!)
      .assumingMemoryBound(to: State.self)
    lockPointer = raw.advanced(by: MemoryLayout<Storage>.offset(of: \.lock)!)
      .assumingMemoryBound(to: LockPrimitive.self)
    statePointer.initialize(to: initial)
    lockPointer.initializeLock()
  }

  deinit {
    lockPointer.deinitializeLock()
    statePointer.deinitialize(count: 1)
    storage.deallocate()
  }

  /// Runs `body` with exclusive access to the value.
  @inline(__always)
  package final func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    let lock = lockPointer
    lock.lock()
    defer { lock.unlock() }
    return try body(&statePointer.pointee)
  }
}
