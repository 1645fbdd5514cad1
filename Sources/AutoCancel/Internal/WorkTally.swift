/// What became of the work of one bag, as the bag hands it to its instrument
/// (`BagInstrument.workCounted(_:in:)`): once when it ends, and once more for each item
/// added after its end.
///
/// Counts of cancellations are kept by the kind of their reason and by their trigger, inline,
/// so that counting never allocates.
package struct WorkTally: Sendable, Hashable {
  /// Work registered: every item but links, including work refused as a duplicate.
  package var registered = 0
  /// Work that finished (a task that returned or threw `CancellationError` of its own).
  package var finished = 0
  /// Work that failed (a task that threw).
  package var failed = 0
  /// Cancellations by the kind of their reason, at `CancellationReason.kindIndex`.
  package var cancelledByKind = SIMD8<Int>()
  /// Cancellations by what caused them, at `CancelTrigger.rawValue`.
  package var cancelledByTrigger = SIMD8<Int>()

  package init() {}

  /// Work cancelled, for any reason.
  package var cancelled: Int { cancelledByKind.wrappedSum() }

  /// Counts `count` cancellations for `reason`, caused by `trigger`.
  mutating func countCancelled(_ count: Int, reason: CancellationReason, trigger: CancelTrigger) {
    cancelledByKind[reason.kindIndex] += count
    cancelledByTrigger[trigger.rawValue] += count
  }
}

/// What caused a cancellation, as a bag counts it.
package enum CancelTrigger: Int, Sendable, CaseIterable {
  /// The bag was released: its owner went away.
  case bagReleased
  /// `cancelAll(reason:)`.
  case cancelAll
  /// `end(reason:)`, or a parent or link source that ended.
  case end
  /// The registration's `cancel()`.
  case registration
  /// `cancel(key:)` or `cancelAll(keys:)`.
  case key
  /// A key's policy: work replaced, or refused as a duplicate.
  case keyPolicy
  /// A deadline passed.
  case deadline
  /// Work added after the bag ended, cancelled at once.
  case addedAfterEnd
}

/// What one instrumented bag counted before it ended, beyond what its sequence numbers and
/// its table tell: failures, cancellations of single items, links, and work refused without a
/// number.
///
/// Allocated on the first such event of a bag that has an instrument; never on add or finish,
/// and never for a bag without one.
final class BagTally: @unchecked Sendable {
  // Safety: reachable only from the `BagState` that holds it, so only under that bag's lock.

  /// Failures and cancellations; `registered` counts only work refused without a sequence
  /// number (duplicates), and `finished` stays zero (worked out when the bag ends).
  var counts = WorkTally()
  /// Sequence numbers given to links, which are not work.
  var links: UInt64 = 0
}
