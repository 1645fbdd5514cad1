import AutoCancel

/// Work that implements only `cancel()`, relying on the protocol's default
/// `cancel(reason:)`, and counts its cancels. Thread-safe.
///
/// ```swift
/// let work = RecordingPlainWork()
/// bag.add(work)
/// bag.cancelAll()
/// #expect(work.cancelCount == 1)
/// ```
package final class RecordingPlainWork: AutoCancellable, Sendable {
  private let cancels = Protected(0)

  package init() {}

  package func cancel() {
    cancels.withLock { $0 += 1 }
  }

  /// How many times the work was cancelled.
  package var cancelCount: Int { cancels.current }
}
