import AutoCancel

/// Work that says when it is done, as `Operation` does (`FinishReporting`), and counts its
/// cancels. Thread-safe.
///
/// ```swift
/// let work = RecordingFinishingWork()
/// bag.add(work)
/// work.complete()  // the bag may now drop it without cancelling
/// ```
package final class RecordingFinishingWork: FinishReporting, Sendable {
  private let state = Protected((finished: false, cancels: 0))

  package init() {}

  /// Marks the work done: from now on `isFinished` is true.
  package func complete() {
    state.withLock { $0.finished = true }
  }

  package var isFinished: Bool { state.current.finished }

  package func cancel() {
    state.withLock { $0.cancels += 1 }
  }

  /// How many times the work was cancelled.
  package var cancelCount: Int { state.current.cancels }
}
