import Foundation
import Testing

/// Runs `body(index)` on `count` new threads that all start together, and returns when every
/// one has returned.
///
/// Real threads, not tasks: the bag's API is synchronous, racing threads must start at the same
/// moment, and some tests block a thread on purpose, which must never happen on the
/// cooperative pool. Suites that use it carry a time limit, which bounds the wait.
///
/// ```swift
/// await onThreads(4) { index in
///   for _ in 0..<1_000 { bag.add(work).finish() }
/// }
/// ```
package func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    startThreads(count, body) { continuation.resume() }
  }
}

/// Runs `body(index)` on `count` new threads that all start together, blocking the calling
/// thread (never a thread of the cooperative pool) until every one has returned, or
/// ``waitBound`` seconds have passed (then an issue is recorded).
package func onThreadsBlocking(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let finished = Gate()
  startThreads(count, body) { finished.open() }
  finished.wait()
}

/// Runs `body` on a new thread and returns its result: the tests' one way to run, from async
/// code, what would otherwise hold up a thread of the cooperative pool, which every async test
/// shares (two threads on a two-core machine).
///
/// For seconds of CPU, for a call that blocks by design (a `deinit` that stops a server), and
/// for a test's own calls into URLSession: on Linux, making a task, `resume()`, `cancel()` and
/// `invalidateAndCancel()` each wait synchronously for FoundationNetworking's work queue, and
/// two such waits on the pool stall every other test until Dispatch's monitor adds a thread,
/// at most one a second. The library's own cancels go to a queue of their own for that reason.
///
/// ```swift
/// let task = await onNewThread {
///   let task = session.dataTask(with: url)
///   task.resume()
///   return task
/// }
/// // ...
/// await onNewThread { task.cancel() }
/// await onNewThread { session.invalidateAndCancel() }
/// ```
package func onNewThread<Result: Sendable>(
  _ body: @escaping @Sendable () -> Result
) async -> Result {
  await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.start()
  }
}

/// Runs `body`, and every nonisolated async function it calls, on threads of its own instead
/// of the cooperative pool: for an exit test (`#expect(processExitsWith:)`), whose parent side
/// reads its child's reports synchronously, holding its thread for the child's whole life.
/// Two exit tests on the pool would hold both of its threads on a two-core machine, and every
/// other test would wait for them.
///
/// Only what runs in `body`'s own task moves: stack samples of a loaded run under
/// ThreadSanitizer (Swift Testing 6.3, Linux) still show the reads of the child's reports on
/// threads of the pool, where Swift Testing makes them in a task of its own; Dispatch then adds
/// pool threads for the blocked ones, about one a second.
///
/// Where task executors are not available (before macOS 15 and iOS 18), runs `body` as it is.
///
/// ```swift
/// await offThePool {
///   await #expect(processExitsWith: .success) { exit(0) }
/// }
/// ```
@discardableResult
package func offThePool<Result>(
  isolation: isolated (any Actor)? = #isolation, _ body: () async -> Result
) async -> Result {
  if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
    return await withTaskExecutorPreference(ThreadPerJobExecutor.shared, isolation: isolation) {
      await body()
    }
  }
  return await body()
}

/// A task executor that runs each job on a new thread: a job that blocks holds only its own.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
private final class ThreadPerJobExecutor: TaskExecutor {
  static let shared = ThreadPerJobExecutor()

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    Thread { job.runSynchronously(on: executor) }.start()
  }
}

/// Starts `count` threads that run `body(index)` together; calls `allReturned` once every one
/// has returned.
private func startThreads(
  _ count: Int, _ body: @escaping @Sendable (Int) -> Void,
  allReturned: @escaping @Sendable () -> Void
) {
  let start = Gate()
  let remaining = Protected(count)
  for index in 0..<count {
    let thread = Thread {
      start.wait()
      body(index)
      let isLast = remaining.withLock { remaining in
        remaining -= 1
        return remaining == 0
      }
      // Called after the lock is released: it resumes a continuation or opens a gate.
      if isLast { allReturned() }
    }
    thread.start()
  }
  start.open()
}
