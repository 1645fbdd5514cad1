/// A launched task's place under its key: waiting for its turn, let through, or never.
///
/// Made for every task launched under a key. The bag decides every transition under its lock
/// and returns the continuation to resume, if any, to resume after the lock; the task reads
/// where it stands through the bag (`BagCore.awaitTurn`), never on its own.
///
/// ```
///                 admit              startGivingBack              finishGivingBack
/// waiting ─────────────────▶ admitted ─────────────▶ givingBack ─────────────────▶ returned
///  │    ▲ park  │ admit           ▲
///  │    └─ parked ────────────────┘
///  │ cancel │ cancel
///  ▼        ▼
///   cancelled        (launched on an ended bag: cancelled from the start)
/// ```
///
/// `givingBack` lasts one visit of the bag's lock: the task returned, and its key is given back
/// as its registration leaves the table (or at once, if it left already).
///
/// Usable from inline code, as a reference that `BagTask` holds and hands back to the bag.
@usableFromInline
final class KeyTurn: @unchecked Sendable {
  // Safety: `state` is read and written only under the lock of the bag that the launch is in,
  // by `BagState` and `BagCore`; `key` never changes.

  enum State {
    /// Waiting for its turn; the task has not suspended for it yet.
    case waiting
    /// Waiting for its turn, with the task suspended on this continuation.
    case parked(UnsafeContinuation<Bool, Never>)
    /// Let through: the task holds its key until its operation returns (or it learns that it
    /// will never run).
    case admitted
    /// Cancelled before its turn came, or launched on a bag that had ended: it never holds
    /// its key, and its operation never runs.
    case cancelled
    /// Let through, and returned: its key is being given back, under the bag's lock now.
    case givingBack
    /// Let through, and returned: the key was given back.
    case returned
  }

  /// The key the task was launched under.
  let key: BagKey
  var state: State

  init(key: BagKey, state: State) {
    self.key = key
    self.state = state
  }

  /// Lets the task through; returns the continuation to resume with `true`, if it waits on one.
  func admit() -> UnsafeContinuation<Bool, Never>? {
    switch state {
    case .waiting:
      state = .admitted
      return nil
    case .parked(let continuation):
      state = .admitted
      return continuation
    case .admitted, .cancelled, .givingBack, .returned:
      preconditionFailure("Invalid state: a launch admitted twice, or after it ended")
    }
  }

  /// The task will never run: returns the continuation to resume with `false`, if it waits on
  /// one. Does nothing once the task was let through.
  func cancel() -> UnsafeContinuation<Bool, Never>? {
    switch state {
    case .waiting:
      state = .cancelled
      return nil
    case .parked(let continuation):
      state = .cancelled
      return continuation
    case .admitted, .cancelled, .givingBack, .returned:
      return nil
    }
  }

  /// The task asks for its turn: true if it was let through, false if it never will be, or
  /// nil once it is parked on `continuation`.
  func park(_ continuation: UnsafeContinuation<Bool, Never>) -> Bool? {
    switch state {
    case .waiting:
      state = .parked(continuation)
      return nil
    case .admitted: return true
    case .cancelled: return false
    case .parked, .givingBack, .returned:
      preconditionFailure("Invalid state: a launch waited for its turn twice")
    }
  }

  /// The task returned: true if it holds its key, which it now starts giving back (finish
  /// with `finishGivingBack` in the same lock).
  func startGivingBack() -> Bool {
    switch state {
    case .admitted:
      state = .givingBack
      return true
    case .cancelled:
      return false
    case .waiting, .parked, .givingBack, .returned:
      preconditionFailure("Invalid state: a launch returned before its turn, or twice")
    }
  }

  /// The key was given back.
  func finishGivingBack() {
    guard case .givingBack = state else {
      preconditionFailure("Invalid state: a key given back by a launch that did not return")
    }
    state = .returned
  }

  /// Whether the launch still waits for its turn.
  var isWaiting: Bool {
    switch state {
    case .waiting, .parked: true
    case .admitted, .cancelled, .givingBack, .returned: false
    }
  }
}
