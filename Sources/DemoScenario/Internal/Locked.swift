import Foundation

/// A value behind a lock, shareable across threads and tasks.
///
/// `NSLock` rather than Synchronization's `Mutex`, which needs iOS 18 / macOS 15: the demo
/// builds at the package's floors. Callers decide under the lock and act (resume
/// continuations, print) after `withLock` returns.
// Safety: `value` is read and written only between `lock.lock()` and `lock.unlock()`, and `Value` is `Sendable`.
final class Locked<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return body(&value)
  }
}
