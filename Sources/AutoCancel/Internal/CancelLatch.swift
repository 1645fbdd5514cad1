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
///    │                  │
///    │ cancel           │ cancel
///    ▼                  ▼
/// cancelled ◀───────────┘   (attach here: cancel the work at once)
/// ```
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

  /// Hands the work over. Attaching twice, or after completion, is a programming error.
  package mutating func attach(_ work: Work) -> AttachAction {
    switch self {
    case .waiting:
      self = .attached(work)
      return .proceed
    case .cancelled(let reason):
      return .cancel(work, reason)
    case .attached, .completed:
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

  /// The attached work completed. Returns false when a cancel won first (the completion is
  /// then ignored). Completing work that was never attached is a programming error.
  package mutating func complete() -> Bool {
    switch self {
    case .attached:
      self = .completed
      return true
    case .cancelled:
      return false
    case .waiting, .completed:
      preconditionFailure("Invalid state: CancelLatch completed without attached work")
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
