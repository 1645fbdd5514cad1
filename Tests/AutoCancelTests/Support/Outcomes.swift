@testable import AutoCancel

/// Work that records how it ended, and lets a test await it.
final class RecordingWork: AutoCancellable, Sendable {
  private let state = Locked<
    (reasons: [CancellationReason], waiters: [CheckedContinuation<CancellationReason, Never>])
  >(([], []))

  func cancel() { cancel(reason: .explicit) }

  func cancel(reason: CancellationReason) {
    let waiters = state.withLock { state in
      state.reasons.append(reason)
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume(returning: reason) }
  }

  /// Every reason it was cancelled with, in order.
  var reasons: [CancellationReason] { state.withLock { $0.reasons } }

  /// Waits for the first cancellation and returns its reason.
  func cancellation() async -> CancellationReason {
    await withCheckedContinuation { continuation in
      let reason: CancellationReason? = state.withLock { state in
        if let first = state.reasons.first { return first }
        state.waiters.append(continuation)
        return nil
      }
      if let reason { continuation.resume(returning: reason) }
    }
  }
}

extension CancelBag {
  /// Links to children and linked bags held in this bag's table (white-box, for tests).
  var linkCount: Int { core.withLock { $0.linkCount } }
  /// Slots in the table, free or not (white-box, for tests).
  var slotCount: Int { core.withLock { $0.slots.count } }
  /// Label, key and timer records, and keys, held for work in flight (white-box, for tests).
  var sideRecordCount: Int { core.withLock { $0.details.count + $0.keys.count } }
}
