import AutoCancelTestSupport
import Testing

@testable import AutoCancel

/// Work that records how it ended, and lets a test await it.
final class RecordingWork: ReasonAwareCancellable, Sendable {
  private let reasonsSeen = Protected<[CancellationReason]>([])

  func cancel() { cancel(reason: .explicit) }

  func cancel(reason: CancellationReason) {
    reasonsSeen.withLock { $0.append(reason) }
  }

  /// Every reason it was cancelled with, in order.
  var reasons: [CancellationReason] { reasonsSeen.withLock { $0 } }

  /// Waits for the first cancellation and returns its reason; `nil` if the wait gave up
  /// (see ``waitUntil``).
  func cancellation(
    sourceLocation: SourceLocation = #_sourceLocation
  ) async
    -> CancellationReason?
  {
    await waitUntil("the work is cancelled", sourceLocation: sourceLocation) { !reasons.isEmpty }
    return reasons.first
  }
}

extension CancelBag {
  /// Links to children and linked bags held in this bag's table (white-box, for tests).
  var linkCount: Int { core.withLock { $0.linkCount } }
  /// Slots in the table, free or not (white-box, for tests).
  var slotCount: Int { core.withLock { $0.table.capacity } }
  /// Label, key and timer records, and keys, held for work in flight (white-box, for tests).
  var sideRecordCount: Int { core.withLock { $0.details.count + $0.keys.count } }
}
