import Foundation

/// A value shared between threads, guarded by a lock: the demo's one lock.
///
/// Reference semantics: copies share one value. `body` must not call back into the same box.
/// The library's own lock is internal to its package; the demo, a package of its own, uses
/// Foundation's.
final class Locked<Value>: @unchecked Sendable {
  // Safety: `value` is only touched inside `withLock`, under `lock`.
  private var value: Value
  private let lock = NSLock()

  init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
