/// Cancellations by the kind of their reason: one count per ``CancelBagStatistics/Reason``,
/// inline, so that counting never allocates.
struct ReasonCounts: Sendable, Hashable {
  var ownerGone = 0
  var explicit = 0
  var replaced = 0
  var duplicate = 0
  var timedOut = 0
  var parentEnded = 0
  var linkEnded = 0
  var custom = 0

  subscript(reason: CancelBagStatistics.Reason) -> Int {
    get {
      switch reason {
      case .ownerGone: ownerGone
      case .explicit: explicit
      case .replaced: replaced
      case .duplicate: duplicate
      case .timedOut: timedOut
      case .parentEnded: parentEnded
      case .linkEnded: linkEnded
      case .custom: custom
      }
    }
    set {
      switch reason {
      case .ownerGone: ownerGone = newValue
      case .explicit: explicit = newValue
      case .replaced: replaced = newValue
      case .duplicate: duplicate = newValue
      case .timedOut: timedOut = newValue
      case .parentEnded: parentEnded = newValue
      case .linkEnded: linkEnded = newValue
      case .custom: custom = newValue
      }
    }
  }

  var total: Int {
    ownerGone + explicit + replaced + duplicate + timedOut + parentEnded + linkEnded + custom
  }

  // Field by field: a loop over `allCases` makes an array each time.
  mutating func add(_ other: ReasonCounts) {
    ownerGone += other.ownerGone
    explicit += other.explicit
    replaced += other.replaced
    duplicate += other.duplicate
    timedOut += other.timedOut
    parentEnded += other.parentEnded
    linkEnded += other.linkEnded
    custom += other.custom
  }

  mutating func subtract(_ other: ReasonCounts) {
    ownerGone -= other.ownerGone
    explicit -= other.explicit
    replaced -= other.replaced
    duplicate -= other.duplicate
    timedOut -= other.timedOut
    parentEnded -= other.parentEnded
    linkEnded -= other.linkEnded
    custom -= other.custom
  }
}

/// Cancellations by what caused them: one count per ``CancelBagStatistics/Trigger``, inline.
struct TriggerCounts: Sendable, Hashable {
  var bagReleased = 0
  var cancelAll = 0
  var end = 0
  var registration = 0
  var key = 0
  var keyPolicy = 0
  var deadline = 0
  var addedAfterEnd = 0

  subscript(trigger: CancelBagStatistics.Trigger) -> Int {
    get {
      switch trigger {
      case .bagReleased: bagReleased
      case .cancelAll: cancelAll
      case .end: end
      case .registration: registration
      case .key: key
      case .keyPolicy: keyPolicy
      case .deadline: deadline
      case .addedAfterEnd: addedAfterEnd
      }
    }
    set {
      switch trigger {
      case .bagReleased: bagReleased = newValue
      case .cancelAll: cancelAll = newValue
      case .end: end = newValue
      case .registration: registration = newValue
      case .key: key = newValue
      case .keyPolicy: keyPolicy = newValue
      case .deadline: deadline = newValue
      case .addedAfterEnd: addedAfterEnd = newValue
      }
    }
  }

  mutating func add(_ other: TriggerCounts) {
    bagReleased += other.bagReleased
    cancelAll += other.cancelAll
    end += other.end
    registration += other.registration
    key += other.key
    keyPolicy += other.keyPolicy
    deadline += other.deadline
    addedAfterEnd += other.addedAfterEnd
  }

  mutating func subtract(_ other: TriggerCounts) {
    bagReleased -= other.bagReleased
    cancelAll -= other.cancelAll
    end -= other.end
    registration -= other.registration
    key -= other.key
    keyPolicy -= other.keyPolicy
    deadline -= other.deadline
    addedAfterEnd -= other.addedAfterEnd
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
