/// The state of work that may be cancelled before it exists: a cancel that arrives first is
/// kept and applied when the work is attached, and the first of "completed" and "cancelled"
/// wins.
///
/// A plain value, embedded in the state its owner guards with a ``Locked``: every transition
/// runs under that lock and returns what to do, and the owner does it after releasing the
/// lock (cancelling work may run user code). Used by the bag's tasks and by the URLSession
/// requests of AutoCancelNetworking alike.
///
/// ```
///            attach             complete
/// waiting ─────────▶ attached ─────────▶ completed
///    │  │                │                  ▲
///    │  └────────────────┼──────────────────┘ complete (started before it was attached)
///    │ cancel            │ cancel
///    ▼                   ▼
/// cancelled ◀────────────┘   (attach here: cancel the work at once)
/// ```
///
/// Work that its creator starts before attaching it (so that no cancel can reach it while it
/// is being started) may complete before it is attached: then `attach` has nothing to do.
package enum CancelLatch<Work, Reason> {
  /// No work yet, no cancel yet.
  case waiting
  /// The work exists and may still be cancelled.
  case attached(Work)
  /// Cancelled, before or after the work was attached; `attach` cancels late work at once.
  case cancelled(Reason)
  /// The work completed before any cancel: later cancels do nothing.
  case completed

  /// A new latch, waiting for its work.
  package init() { self = .waiting }

  /// What to do with work being attached.
  package enum AttachAction {
    /// Let the work run.
    case proceed
    /// A cancel came first: cancel the work now, and do not start it.
    case cancel(Work, Reason)
  }

  /// Hands the work over; work that already completed needs nothing more. Attaching twice is
  /// a programming error.
  package mutating func attach(_ work: Work) -> AttachAction {
    switch self {
    case .waiting:
      self = .attached(work)
      return .proceed
    case .cancelled(let reason):
      return .cancel(work, reason)
    case .completed:
      return .proceed
    case .attached:
      preconditionFailure("Invalid state: work attached twice to a CancelLatch")
    }
  }

  /// What a cancel has to do.
  package enum CancelAction {
    /// Cancel this work now.
    case cancel(Work)
    /// The cancel won, but there is no work yet: `attach` will cancel it.
    case cancelWhenAttached
    /// Already cancelled or completed: nothing to do.
    case none
  }

  /// Cancels with `reason`, unless the latch was already cancelled or completed.
  package mutating func cancel(_ reason: Reason) -> CancelAction {
    switch self {
    case .waiting:
      self = .cancelled(reason)
      return .cancelWhenAttached
    case .attached(let work):
      self = .cancelled(reason)
      return .cancel(work)
    case .cancelled, .completed:
      return .none
    }
  }

  /// The work completed, attached or not yet. Returns false when a cancel won first (the
  /// completion is then ignored). Completing twice is a programming error.
  package mutating func complete() -> Bool {
    switch self {
    case .waiting, .attached:
      self = .completed
      return true
    case .cancelled:
      return false
    case .completed:
      preconditionFailure("Invalid state: CancelLatch completed twice")
    }
  }

  /// Whether the work may still deliver: neither cancelled nor completed.
  package var isOpen: Bool {
    switch self {
    case .waiting, .attached: true
    case .cancelled, .completed: false
    }
  }

  /// The reason of the cancel that won, if one did.
  package var cancellationReason: Reason? {
    if case .cancelled(let reason) = self { return reason }
    return nil
  }

  /// The work, while it is attached and neither cancelled nor completed.
  package var attachedWork: Work? {
    if case .attached(let work) = self { return work }
    return nil
  }
}

extension CancelLatch: Sendable where Work: Sendable, Reason: Sendable {}
