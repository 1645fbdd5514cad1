import Foundation
import Testing

/// A one-way event: closed until ``open()``, then open for good. The tests' one primitive for
/// "wait until this has happened", for tasks and threads alike.
///
/// Tasks suspend in `await wait()`, and are resumed by `open()` itself, without polling;
/// threads block in `wait()` (the synchronous overload, chosen outside async code). Used to
/// hold work (a `cancel`, a thread) at a known point until the test lets it go, or to wait for
/// an outcome: a behaviour check, never a timing one. Both waits give up after ``waitBound``
/// seconds with an issue; a cancelled task stops waiting at once, without one. Safe from any
/// thread; `open()` resumes its waiters after releasing the gate's lock.
///
/// ```swift
/// let started = Gate()
/// let task = bag.task { started.open(); try await Task.sleep(for: .seconds(60)) }
/// await started.wait()
/// bag.end()
/// ```
package final class Gate: @unchecked Sendable {
  // Safety: `state` is only touched under `condition`; continuations are resumed after it is
  // released.
  private let condition = NSCondition()
  private var state = State()

  private struct State {
    var isOpen = false
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextWaiter = 0
  }

  package init() {}

  /// Opens the gate, releasing every waiter, task or thread. Idempotent.
  package func open() {
    let waiters: [CheckedContinuation<Void, Never>] = condition.withLock {
      state.isOpen = true
      condition.broadcast()
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Whether the gate has been opened.
  package var hasOpened: Bool { condition.withLock { state.isOpen } }

  /// Blocks the calling thread until the gate is open; for the tests' own threads, never for
  /// the cooperative pool (async code calls the `async` overload).
  package func wait(sourceLocation: SourceLocation = #_sourceLocation) {
    let deadline = Date(timeIntervalSinceNow: waitBound)
    let opened = condition.withLock {
      while !state.isOpen {
        if !condition.wait(until: deadline) { return state.isOpen }
      }
      return true
    }
    if !opened {
      Issue.record(
        "Waited \(waitBound) s in vain for a gate to open", sourceLocation: sourceLocation)
    }
  }

  /// Suspends until the gate is open (returns at once if it is), or the task is cancelled;
  /// after ``waitBound`` seconds, records an issue naming `what` and returns.
  package func wait(
    _ what: @autoclosure () -> String = "a gate opens",
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    let started = DispatchTime.now()
    let outcome = await suspend()
    switch outcome {
    case .opened:
      WaitLog.record(since: started, what(), sourceLocation)
    case .cancelled:
      break
    case .timedOut:
      Issue.record("Waited \(waitBound) s in vain until \(what())", sourceLocation: sourceLocation)
    }
  }

  private enum Outcome { case opened, cancelled, timedOut }

  private func suspend() async -> Outcome {
    let id: Int = condition.withLock {
      defer { state.nextWaiter += 1 }
      return state.nextWaiter
    }
    let deadline = DispatchTime.now() + waitBound
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let isOpen: Bool = condition.withLock {
          if state.isOpen { return true }
          state.waiters[id] = continuation
          return false
        }
        if isOpen { return continuation.resume() }
        if Task.isCancelled { return release(id) }
        DispatchQueue.global().asyncAfter(deadline: deadline) { [self] in release(id) }
      }
    } onCancel: {
      release(id)
    }
    if hasOpened { return .opened }
    return Task.isCancelled ? .cancelled : .timedOut
  }

  /// Resumes the waiter `id`, if it still waits.
  private func release(_ id: Int) {
    let waiter = condition.withLock { state.waiters.removeValue(forKey: id) }
    waiter?.resume()
  }
}
