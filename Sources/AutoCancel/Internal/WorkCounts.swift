/// A count for each case of `Kind` (a reason's kind, or a trigger), inline, so that counting
/// never allocates; adding and subtracting work on all eight counts at once.
struct CaseCounts<Kind: CountedKind>: Sendable, Hashable {
  private var counts = SIMD8<Int>()

  subscript(kind: Kind) -> Int {
    get { counts[kind.countIndex] }
    set { counts[kind.countIndex] = newValue }
  }

  var total: Int { counts.wrappedSum() }

  mutating func add(_ other: CaseCounts) { counts &+= other.counts }

  mutating func subtract(_ other: CaseCounts) { counts &-= other.counts }
}

/// A kind that ``CaseCounts`` counts: at most eight cases, each with a place of its own.
protocol CountedKind: Sendable, Hashable {
  /// The case's place among its type's cases, from 0 to 7.
  var countIndex: Int { get }
}

extension CancelBagStatistics.Reason: CountedKind {
  var countIndex: Int {
    switch self {
    case .ownerGone: 0
    case .explicit: 1
    case .replaced: 2
    case .duplicate: 3
    case .timedOut: 4
    case .parentEnded: 5
    case .linkEnded: 6
    case .custom: 7
    }
  }
}

extension CancelBagStatistics.Trigger: CountedKind {
  var countIndex: Int {
    switch self {
    case .bagReleased: 0
    case .cancelAll: 1
    case .end: 2
    case .registration: 3
    case .key: 4
    case .keyPolicy: 5
    case .deadline: 6
    case .addedAfterEnd: 7
    }
  }
}

extension CancelBagStatistics {
  /// Counts `count` cancellations for `reason`, caused by `trigger`.
  mutating func countCancelled(
    _ count: Int, reason: CancellationReason, trigger: CancelBagStatistics.Trigger
  ) {
    reasons[CancelBagStatistics.Reason(reason)] += count
    triggers[trigger] += count
  }

  /// Counts the work of a bag that ended having counted nothing but its sequence numbers:
  /// `registered` items, of which `cancelled` were cancelled by the end and the rest finished.
  mutating func countEnded(
    registered: Int, cancelled: Int, reason: CancelBagStatistics.Reason,
    trigger: CancelBagStatistics.Trigger
  ) {
    self.registered += registered
    finished += registered - cancelled
    reasons[reason] += cancelled
    triggers[trigger] += cancelled
  }

  /// Adds `other`'s counts to these.
  mutating func add(_ other: CancelBagStatistics) {
    registered += other.registered
    finished += other.finished
    failed += other.failed
    reasons.add(other.reasons)
    triggers.add(other.triggers)
  }
}

/// What one bag counted before it ended, beyond what its sequence numbers and its table tell:
/// failures, cancellations of single items, links, and work refused without a number; and the
/// bag's label.
///
/// Allocated on the first such event, or when a labelled bag is made; never on add or finish:
/// an unlabelled bag whose work only finished, or was cancelled only when the bag ended,
/// never makes one.
final class BagTally: @unchecked Sendable {
  // Safety: reachable only from the `BagState` that holds it, so only under that bag's lock;
  // taken out of the state when the bag ends, and read then by the thread that ended it.

  /// Failures and cancellations; `registered` counts only work refused without a sequence
  /// number (duplicates), and `finished` stays zero (worked out when the bag ends).
  var counts = CancelBagStatistics()
  /// Sequence numbers given to links, which are not work.
  var links: UInt64 = 0
  /// The bag's label: a labelled bag makes its tally when it is made.
  var label: String?

  /// Whether nothing was counted (a labelled bag's tally may hold nothing but its label).
  var isEmpty: Bool {
    links == 0 && counts.registered == 0 && counts.failed == 0 && counts.cancelled == 0
  }
}
