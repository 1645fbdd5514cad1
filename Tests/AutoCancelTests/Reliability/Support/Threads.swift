import AutoCancelTestSupport
import Foundation
import Testing

/// Runs `body(index)` on `count` new threads that all start together, and returns when every
/// one has returned.
///
/// Real threads, not tasks: the bag's API is synchronous and some tests block a thread on
/// purpose, which must never happen on the cooperative pool.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    startThreads(count, body) { continuation.resume() }
  }
}

/// Runs `body(index)` on `count` new threads that all start together, blocking the calling
/// thread (never a thread of the cooperative pool) until every one has returned.
func onThreadsBlocking(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let finished = Gate()
  startThreads(count, body) { finished.open() }
  finished.wait()
}

/// Starts `count` threads that run `body(index)` together; calls `allReturned` once every one
/// has returned.
private func startThreads(
  _ count: Int, _ body: @escaping @Sendable (Int) -> Void,
  allReturned: @escaping @Sendable () -> Void
) {
  let start = Gate()
  let done = Countdown(count)
  done.onZero = allReturned
  for index in 0..<count {
    let thread = Thread {
      start.wait()
      body(index)
      done.countDown()
    }
    thread.start()
  }
  start.open()
}

/// Runs `body` on a new thread and returns its result.
func onNewThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
  await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.start()
  }
}

/// Calls `onZero` once, when `countDown()` has been called `count` times.
final class Countdown: @unchecked Sendable {
  // Safety: `remaining` and `onZero` are only touched under `lock`.
  private let lock = NSLock()
  private var remaining: Int
  private var action: (@Sendable () -> Void)?

  init(_ count: Int) { remaining = count }

  var onZero: (@Sendable () -> Void)? {
    get { lock.withLock { action } }
    set { lock.withLock { action = newValue } }
  }

  func countDown() {
    let fire: (@Sendable () -> Void)? = lock.withLock {
      remaining -= 1
      return remaining == 0 ? action : nil
    }
    fire?()
  }
}

/// A value shared between threads, guarded by a lock.
final class Shared<Value: Sendable>: @unchecked Sendable {
  // Safety: `value` is only touched under `lock`.
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    try lock.withLock { try body(&value) }
  }

  var current: Value { lock.withLock { value } }
}
