import Synchronization

/// A value behind a mutex, shareable across threads and tasks.
///
/// The only place the demo imports Synchronization. Callers decide under the lock and act
/// (resume continuations, print) after `withLock` returns.
final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>

  init(_ value: Value) {
    mutex = Mutex(value)
  }

  func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
    mutex.withLock { body(&$0) }
  }
}
