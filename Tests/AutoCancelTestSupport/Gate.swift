import Foundation
import Testing

/// A one-way signal for threads: closed until `open()`, then open for good.
///
/// Threads block in `wait()`; async code suspends in `opened()`. Used to hold a work item's
/// `cancel` (or a thread) at a known point until the test lets it go: a behaviour check,
/// never a timing one. Both waits give up after ``waitBound`` seconds with an issue.
package final class Gate: @unchecked Sendable {
  // Safety: `isOpen` is only touched under `condition`.
  private let condition = NSCondition()
  private var isOpen = false

  package init() {}

  /// Opens the gate, releasing every waiter. Idempotent.
  package func open() {
    condition.withLock {
      isOpen = true
      condition.broadcast()
    }
  }

  /// Blocks the calling thread until the gate is open; never call it on the cooperative pool.
  package func wait(sourceLocation: SourceLocation = #_sourceLocation) {
    let deadline = Date(timeIntervalSinceNow: waitBound)
    let opened = condition.withLock {
      while !isOpen {
        if !condition.wait(until: deadline) { return isOpen }
      }
      return true
    }
    if !opened {
      Issue.record(
        "Waited \(waitBound) s in vain for a gate to open", sourceLocation: sourceLocation)
    }
  }

  /// Suspends until the gate is open, or the task is cancelled.
  package func opened(sourceLocation: SourceLocation = #_sourceLocation) async {
    await waitUntil("a gate opens", sourceLocation: sourceLocation) { hasOpened }
  }

  /// Whether the gate has been opened.
  package var hasOpened: Bool { condition.withLock { isOpen } }
}
