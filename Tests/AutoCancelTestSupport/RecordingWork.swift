import AutoCancel
import Testing

/// Work that records every cancel it receives, with its reason; the tests' standard work.
///
/// Thread-safe: `cancel` may come on any thread, and the record is read from any other.
/// `cancel()` records ``CancellationReason/explicit``, as a bag's `cancel()` would. Not
/// idempotent on purpose: a second cancel is recorded, so a test can see it happened.
/// `onCancel` runs after the record is taken and the lock released, on the cancelling thread,
/// so the work can call back into its bag from inside `cancel`, as real work does.
///
/// ```swift
/// let work = RecordingWork()
/// let registration = bag.add(work)
/// registration.cancel()
/// #expect(work.reasons == [.explicit])
/// ```
package final class RecordingWork: ReasonAwareCancellable, Sendable {
  /// A name for the work, for logs of cancel order.
  package let name: String
  private let reasonsSeen = Protected<[CancellationReason]>([])
  private let onCancel: (@Sendable (RecordingWork, CancellationReason) -> Void)?

  /// Work named `name`; `onCancel` runs after each cancel is recorded.
  package init(
    _ name: String = "work",
    onCancel: (@Sendable (RecordingWork, CancellationReason) -> Void)? = nil
  ) {
    self.name = name
    self.onCancel = onCancel
  }

  package func cancel() {
    cancel(reason: .explicit)
  }

  package func cancel(reason: CancellationReason) {
    reasonsSeen.withLock { $0.append(reason) }
    onCancel?(self, reason)
  }

  /// The reasons of every cancel, in order.
  package var reasons: [CancellationReason] { reasonsSeen.current }

  /// How many times the work was cancelled.
  package var cancelCount: Int { reasons.count }

  /// Whether the work was cancelled at least once.
  package var wasCancelled: Bool { cancelCount > 0 }

  /// Waits for the first cancel and returns its reason; `nil` if the wait gave up (see
  /// ``waitUntil(_:timeout:sourceLocation:_:)``), which records an issue unless the task was
  /// cancelled.
  package func cancellation(
    sourceLocation: SourceLocation = #_sourceLocation
  ) async -> CancellationReason? {
    await waitUntil("the work is cancelled", sourceLocation: sourceLocation) { wasCancelled }
    return reasons.first
  }
}
