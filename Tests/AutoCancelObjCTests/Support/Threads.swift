import Foundation

/// Runs `body(index)` on `count` new threads released together, and returns when every one
/// has returned.
///
/// Real threads, not tasks: binding is synchronous, and the threads must start at the same
/// moment to race. Suites that use it carry a time limit, which bounds the wait.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    let start = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for index in 0..<count {
      group.enter()
      let thread = Thread {
        start.wait()
        body(index)
        group.leave()
      }
      thread.start()
    }
    group.notify(queue: .global()) { continuation.resume() }
    for _ in 0..<count { start.signal() }
  }
}
