import AutoCancel

/// An account of the work that bags handled, process-wide: how much was registered, and how
/// it ended (finished, failed or cancelled, and why and how it was cancelled).
///
/// Counted for the bags made after ``AutoCancelDiagnostics/enable()``, one line at launch:
///
/// ```swift
/// AutoCancelDiagnostics.enable()
/// ```
///
/// Read it with ``current`` (every bag), ``current(label:)`` (the bags made with one label)
/// or ``byLabel``; compare two readings with ``since(_:)``.
///
/// ```swift
/// let account = CancelBagStatistics.current(label: "FeedViewModel")
/// print("\(account.cancelled) of \(account.registered) feed requests were cancelled")
/// print(account.cancelledByReason[.ownerGone, default: 0], "because the screen closed")
/// ```
///
/// ## Contract
///
/// - Only bags made while the diagnostics are enabled are counted: a bag made before
///   ``AutoCancelDiagnostics/enable()`` (which returns how many there were) is never in the
///   account.
/// - A bag's work is counted once, when the bag ends: when it is deinitialized, or earlier if
///   `CancelBag.end(reason:)` is called, its parent or a bag it is linked to ends, or its
///   deadline passes. Work in bags that are still open is not in the account yet; work
///   added to a bag that has ended is counted as it is cancelled.
/// - So every count only grows, and ``registered`` equals ``ended``: by the time a bag is
///   counted, everything it registered has finished, failed or been cancelled.
/// - Counting costs adding and finishing work nothing: a bag keeps its counts in its own
///   state, under the lock it already takes, and adds them to the account, under one of a few
///   locks chosen by its label, when it ends. With the diagnostics off, bags count nothing.
/// - Reading is safe from any thread. The account is read lock by lock: bags that end while
///   it is read may be counted or not, each whole.
/// - A cancellation is not a failure: ``failed`` counts only work that threw another error
///   (see `CancelBagEvent.Kind.failed(_:)`).
/// - Links between bags (a child bag, a linked bag) are not work and are never counted; the
///   child's own work is counted under the child's label.
public struct CancelBagStatistics: Sendable, Hashable, CustomStringConvertible {
  /// Work registered: added to a bag, launched by one, or added to a bag that refused it
  /// (a duplicate, or a bag that had ended) and cancelled it at once. A launch refused by
  /// `KeyPolicy.ignoreNew` never started, and is not counted.
  ///
  /// Counted when the bag ends, with how the work ended: always equal to ``ended``.
  ///
  /// ```swift
  /// let feed = CancelBagStatistics.current(label: "FeedViewModel")
  /// print("\(feed.registered) feed requests")
  /// ```
  public var registered: Int { counts.registered }

  /// Work that completed and left its bag without being cancelled: its registration was
  /// finished, its task returned (or threw `CancellationError` by itself), or its
  /// `FinishReporting` work said it finished.
  ///
  /// ```swift
  /// let share = Double(feed.finished) / Double(max(feed.registered, 1))
  /// ```
  public var finished: Int { counts.finished }

  /// Work that ended by throwing an error that is not a cancellation
  /// (`CancelBagEvent.Kind.failed(_:)`): bag tasks, and `Task`s bound with `add`.
  ///
  /// A cancellation is never counted here, whatever the work throws after it.
  ///
  /// ```swift
  /// if feed.failed > 0 { print("\(feed.failed) feed requests failed") }
  /// ```
  public var failed: Int { counts.failed }

  /// The counts, as bags hand them to the diagnostics.
  var counts: WorkTally

  /// An account of nothing: every count zero.
  ///
  /// The starting point for ``since(_:)`` of a label not seen before:
  ///
  /// ```swift
  /// let new = now.since(previous[label] ?? CancelBagStatistics())
  /// ```
  public init() {
    counts = WorkTally()
  }

  init(_ counts: WorkTally) {
    self.counts = counts
  }

  // MARK: Reading

  /// Every bag's work, labelled or not, in bags that have ended.
  ///
  /// Any thread. See the type's contract for when work is counted.
  ///
  /// ```swift
  /// let total = CancelBagStatistics.current
  /// print("\(total.cancelled) cancelled, \(total.failed) failed")
  /// ```
  public static var current: CancelBagStatistics {
    Accounts.total
  }

  /// The work of the bags made with `label`, or of the bags made without one when `label` is
  /// nil.
  ///
  /// Any thread. One label's count is read under one lock: it is the count of one moment.
  ///
  /// ```swift
  /// let feed = CancelBagStatistics.current(label: "FeedViewModel")
  /// ```
  public static func current(label: String?) -> CancelBagStatistics {
    Accounts.account(of: label)
  }

  /// The work of every label that has counted any, with bags made without a label under the
  /// key `nil`.
  ///
  /// Any thread. Read label by label (see the type's contract).
  ///
  /// ```swift
  /// for (label, account) in CancelBagStatistics.byLabel {
  ///   print(label ?? "unlabelled", account.cancelled)
  /// }
  /// ```
  public static var byLabel: [String?: CancelBagStatistics] {
    Accounts.byLabel
  }

  // MARK: Counts

  /// Work cancelled, for any reason: the sum of ``cancelledByReason``, and of
  /// ``cancelledByTrigger``.
  ///
  /// ```swift
  /// print("\(feed.cancelled) of \(feed.registered) feed requests were cancelled")
  /// ```
  public var cancelled: Int { counts.cancelled }

  /// Work that ended: ``finished`` + ``failed`` + ``cancelled``. Equal to ``registered`` in
  /// any reading (bags are counted when all their work has ended).
  ///
  /// ```swift
  /// assert(feed.ended == feed.registered)
  /// ```
  public var ended: Int { finished + failed + cancelled }

  /// Work cancelled, by the kind of its reason; kinds with no cancellation are absent.
  ///
  /// Custom reasons are counted together, under ``Reason/custom``, whatever their text.
  ///
  /// ```swift
  /// let replaced = account.cancelledByReason[.replaced, default: 0]  // superseded searches
  /// ```
  public var cancelledByReason: [Reason: Int] {
    Self.nonZero(counts.cancelledByKind, as: Reason.self)
  }

  /// Work cancelled, by what cancelled it; triggers with no cancellation are absent.
  ///
  /// ```swift
  /// let closed = account.cancelledByTrigger[.bagReleased, default: 0]  // screens that closed
  /// ```
  public var cancelledByTrigger: [Trigger: Int] {
    Self.nonZero(counts.cancelledByTrigger, as: Trigger.self)
  }

  /// The counts that are not zero, by the case at their place.
  private static func nonZero<Kind: CaseIterable & Hashable>(
    _ counts: SIMD8<Int>, as kind: Kind.Type
  ) -> [Kind: Int] {
    var byKind: [Kind: Int] = [:]
    for (index, kind) in Kind.allCases.enumerated() where counts[index] != 0 {
      byKind[kind] = counts[index]
    }
    return byKind
  }

  /// What was counted after `earlier`, a reading taken before this one: each count minus the
  /// earlier one.
  ///
  /// The seam for metrics: read the account now and then, and report what is new.
  ///
  /// ```swift
  /// let start = CancelBagStatistics.current
  /// // … a session later:
  /// let session = CancelBagStatistics.current.since(start)
  /// analytics.track("autocancel_session", properties: ["cancelled": session.cancelled])
  /// ```
  ///
  /// See <doc:SeeingWhatAutoCancelSaves> for reports by label.
  public func since(_ earlier: CancelBagStatistics) -> CancelBagStatistics {
    var difference = counts
    difference.registered -= earlier.registered
    difference.finished -= earlier.finished
    difference.failed -= earlier.failed
    difference.cancelledByKind &-= earlier.counts.cancelledByKind
    difference.cancelledByTrigger &-= earlier.counts.cancelledByTrigger
    return CancelBagStatistics(difference)
  }

  /// One line: `registered 12, finished 7, failed 1, cancelled 4 (owner gone 3, replaced 1;
  /// bag released 3, key policy 1)`; reasons and triggers with no cancellation are left out.
  ///
  /// ```swift
  /// print(CancelBagStatistics.current(label: "FeedViewModel"))
  /// ```
  public var description: String {
    var text = "registered \(registered), finished \(finished), failed \(failed)"
    text += ", cancelled \(cancelled)"
    guard cancelled != 0 else { return text }
    text += " (" + Self.listed(counts.cancelledByKind, as: Reason.self) + "; "
    text += Self.listed(counts.cancelledByTrigger, as: Trigger.self) + ")"
    return text
  }

  /// `case count` for each count that is not zero, in the order of the cases.
  private static func listed<Kind: CaseIterable & CustomStringConvertible>(
    _ counts: SIMD8<Int>, as kind: Kind.Type
  ) -> String {
    Kind.allCases.enumerated().filter { counts[$0.offset] != 0 }
      .map { "\($0.element) \(counts[$0.offset])" }.joined(separator: ", ")
  }

  /// Adds the counts of `tally` to these.
  mutating func add(_ tally: WorkTally) {
    counts.registered += tally.registered
    counts.finished += tally.finished
    counts.failed += tally.failed
    counts.cancelledByKind &+= tally.cancelledByKind
    counts.cancelledByTrigger &+= tally.cancelledByTrigger
  }

  // MARK: Kinds

  /// The kind of a cancellation's reason: a `CancellationReason` without the text of custom
  /// reasons, so that a count has a bounded number of buckets.
  ///
  /// Its cases are declared in the order of the core's kinds (`CancellationReason.kindIndex`).
  public enum Reason: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `CancellationReason.ownerGone`.
    case ownerGone
    /// `CancellationReason.explicit`.
    case explicit
    /// `CancellationReason.replaced`.
    case replaced
    /// `CancellationReason.duplicate`.
    case duplicate
    /// `CancellationReason.timedOut`.
    case timedOut
    /// `CancellationReason.parentEnded`.
    case parentEnded
    /// `CancellationReason.linkEnded`.
    case linkEnded
    /// Any `CancellationReason.custom(_:)` reason, whatever its text.
    case custom

    /// The kind of `reason`.
    ///
    /// ```swift
    /// CancelBagStatistics.Reason(.custom("signed out")) == .custom  // true
    /// ```
    public init(_ reason: CancellationReason) {
      self = Self.allCases[reason.kindIndex]
    }

    /// The reason's description (`owner gone`), or `custom`.
    public var description: String {
      switch self {
      case .ownerGone: "owner gone"
      case .explicit: "explicit"
      case .replaced: "replaced"
      case .duplicate: "duplicate"
      case .timedOut: "timed out"
      case .parentEnded: "parent ended"
      case .linkEnded: "link ended"
      case .custom: "custom"
      }
    }
  }

  /// What cancelled a piece of work: the bag going away, one of its methods, a key, a
  /// deadline.
  ///
  /// The reason says why; the trigger says how. A search cancelled by a newer one has reason
  /// ``Reason/replaced`` and trigger ``keyPolicy``; the same search cancelled because its
  /// screen closed has reason ``Reason/ownerGone`` and trigger ``bagReleased``.
  ///
  /// Its cases are declared in the order of the core's triggers (`CancelTrigger`).
  public enum Trigger: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The bag was deinitialized, its owner gone, with the work in it.
    case bagReleased
    /// `CancelBag.cancelAll(reason:)` on the bag, or on its parent.
    case cancelAll
    /// The bag ended: `CancelBag.end(reason:)`, or its parent or a bag it is linked to
    /// ended.
    case end
    /// `CancelRegistration.cancel()` or `CancelRegistration.cancel(reason:)` of the
    /// work's own registration, or the cancel of a keyed task while it waited for its turn.
    case registration
    /// `CancelBag.cancel(key:reason:)`.
    case key
    /// The policy of the work's key, when newer work came: replaced by it
    /// (`KeyPolicy.replace`), or, for added work, refused as a duplicate of the work
    /// already running (`KeyPolicy.ignoreNew`). A refused launch is not counted: it never
    /// started.
    case keyPolicy
    /// A deadline passed: the work's own timeout, or its bag's deadline.
    case deadline
    /// The work was added to a bag that had already ended, and cancelled at once.
    case addedAfterEnd

    /// A short phrase: `bag released`, `cancelAll`, `end`, `registration`, `key`,
    /// `key policy`, `deadline`, `added after end`.
    public var description: String {
      switch self {
      case .bagReleased: "bag released"
      case .cancelAll: "cancelAll"
      case .end: "end"
      case .registration: "registration"
      case .key: "key"
      case .keyPolicy: "key policy"
      case .deadline: "deadline"
      case .addedAfterEnd: "added after end"
      }
    }
  }
}
