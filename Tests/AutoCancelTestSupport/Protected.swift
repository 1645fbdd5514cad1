import Foundation

/// A value shared between threads, guarded by a lock of the tests' own.
///
/// Reference semantics: copies share one value. `body` must not call back into the same box.
/// An `NSLock`, not the package's lock: the tests' referee never depends on the code under test.
package final class Protected<Value> {
  private var value: Value
  private let lock = NSLock()

  package init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }

  /// A copy of the value.
  package var current: Value { withLock { $0 } }
}

// Safety: `value` is only touched inside `withLock`, under `lock`, and a value that crosses
// threads through the box is itself `Sendable`.
extension Protected: @unchecked Sendable where Value: Sendable {}
