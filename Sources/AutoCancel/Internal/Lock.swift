// The one place where the core touches platform C libraries.
//
// Synchronization's `Mutex` ships on Apple platforms from iOS 18 / macOS 15 only, so the
// core uses a primitive of its own platform: `os_unfair_lock` on Apple platforms, a futex word
// (`autocancel_lock`, in the package's C target) on Linux and Android, and `pthread_mutex_t`
// elsewhere. Built like swift-nio's `NIOLock`: the lock is the tail element of a
// `ManagedBuffer` whose header is the guarded state, so state and lock share one heap
// allocation that never moves (no primitive may be copied once in use).

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

#if os(Linux) || os(Android)
  import CAutoCancelAtomics
#endif

#if canImport(Darwin)
  /// The platform's non-recursive lock.
  @usableFromInline typealias LockPrimitive = os_unfair_lock
#elseif os(Linux) || os(Android)
  /// A futex word: 0 unlocked, 1 locked, 2 locked with threads waiting.
  @usableFromInline typealias LockPrimitive = UInt32
#else
  /// The platform's non-recursive lock.
  @usableFromInline typealias LockPrimitive = pthread_mutex_t
#endif

extension UnsafeMutablePointer where Pointee == LockPrimitive {
  /// Prepares the lock at this address; call once before any other use.
  func initializeLock() {
    #if canImport(Darwin)
      initialize(to: os_unfair_lock())
    #elseif os(Linux) || os(Android)
      initialize(to: 0)
    #else
      initialize(to: pthread_mutex_t())
      let result = pthread_mutex_init(self, nil)
      precondition(result == 0, "pthread_mutex_init failed: \(result)")
    #endif
  }

  /// Tears the lock down; call once, when nobody can use it any more.
  func deinitializeLock() {
    #if !canImport(Darwin) && !os(Linux) && !os(Android)
      let result = pthread_mutex_destroy(self)
      precondition(result == 0, "pthread_mutex_destroy failed: \(result)")
    #endif
    deinitialize(count: 1)
  }

  @inline(__always)
  func lock() {
    #if canImport(Darwin)
      os_unfair_lock_lock(self)
    #elseif os(Linux) || os(Android)
      autocancel_lock(self)
    #else
      let result = pthread_mutex_lock(self)
      precondition(result == 0, "pthread_mutex_lock failed: \(result)")
    #endif
  }

  @inline(__always)
  func unlock() {
    #if canImport(Darwin)
      os_unfair_lock_unlock(self)
    #elseif os(Linux) || os(Android)
      autocancel_unlock(self)
    #else
      let result = pthread_mutex_unlock(self)
      precondition(result == 0, "pthread_mutex_unlock failed: \(result)")
    #endif
  }
}

/// A state and its lock in one heap allocation: the header of a `ManagedBuffer` is the
/// state, its one element the lock.
@usableFromInline
final class LockStorage<State>: ManagedBuffer<State, LockPrimitive> {
  /// Makes storage guarding the value `initial` makes, made in place (not copied in).
  static func make(_ initial: () -> State) -> LockStorage {
    // An empty state would sit at the lock's own address, and ThreadSanitizer takes every
    // `inout` access to it for an unsynchronized write to the lock: guard a real value.
    assert(MemoryLayout<State>.size > 0, "Locked needs a state of non-zero size")
    let buffer = create(minimumCapacity: 1) { _ in initial() }
    let storage = unsafeDowncast(buffer, to: LockStorage.self)
    storage.withUnsafeMutablePointerToElements { $0.initializeLock() }
    return storage
  }

  deinit {
    // The header (the state) is destroyed by `ManagedBuffer`; the lock is ours.
    withUnsafeMutablePointerToElements { $0.deinitializeLock() }
  }

  @inline(__always)
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try withUnsafeMutablePointers { state, lock in
      lock.lock()
      defer { lock.unlock() }
      return try body(&state.pointee)
    }
  }
}

/// A value guarded by the platform lock, in one heap allocation with it.
///
/// Reference semantics: copies share one value and one lock. The lock is not recursive:
/// `body` must not call back into the same `Locked`, and must not run user code, cancel work
/// or resume continuations (decide under the lock, act after it).
///
/// Package access: the package's other targets share this lock rather than bring their own,
/// so that ThreadSanitizer sees every lock the tests reach. The state must not be empty
/// (`Void`): guard the value the lock protects, even if it is only a count.
///
/// ```swift
/// let hits = Locked(0)
/// hits.withLock { $0 += 1 }
/// ```
@usableFromInline
package struct Locked<State: Sendable>: @unchecked Sendable {
  // Safety: the value is only touched inside `withLock`, under the lock, at the fixed address
  // of the storage; copies share that storage. (Unchecked because the standard library makes
  // `ManagedBuffer`, and so the storage, never `Sendable`.)
  @usableFromInline let storage: LockStorage<State>

  /// Creates a lock guarding `initial`.
  ///
  /// An autoclosure, so that the value is made in the storage rather than copied into it
  /// (for a bag's state, a generic copy and destroy of every field: about a fifth of the
  /// cost of an empty bag).
  package init(_ initial: @autoclosure () -> State) {
    storage = LockStorage.make(initial)
  }

  /// Runs `body` with exclusive access to the value.
  @inline(__always)
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try storage.withLock(body)
  }

  /// The identity of the shared storage: equal for copies of one `Locked`, unique among
  /// those alive.
  package var identity: ObjectIdentifier { ObjectIdentifier(storage) }

  /// The storage as a word, with a reference to it of its own: for a holder that keeps the
  /// storage in an atomic word. Give the reference back with ``release(word:)``.
  package func retainedWord() -> UInt {
    UInt(bitPattern: Unmanaged.passRetained(storage).toOpaque())
  }

  /// The storage that `word`, from ``retainedWord()``, names.
  @inlinable
  static func storage(word: UInt) -> Unmanaged<LockStorage<State>> {
    Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped)
  }

  /// Runs `body` with the `Locked` whose storage `word` names, from ``retainedWord()``, without
  /// a reference of its own: for a holder of the word that outlives the call. A copy of the
  /// `Locked` that `body` keeps takes its own reference.
  @inlinable
  package static func withUnretainedWord<Result>(
    _ word: UInt, _ body: (Locked) throws -> Result
  ) rethrows -> Result {
    try storage(word: word)._withUnsafeGuaranteedRef { try body(Locked(storage: $0)) }
  }

  @inlinable
  init(storage: LockStorage<State>) {
    self.storage = storage
  }

  /// Gives back the reference that ``retainedWord()`` took.
  package static func release(word: UInt) {
    storage(word: word).release()
  }
}
