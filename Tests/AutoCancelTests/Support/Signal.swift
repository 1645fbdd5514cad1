/// A one-shot event that tasks can wait for: fired once, then every waiter resumes.
///
/// Waiting for a signal is how tests wait for outcomes without sleeping.
final class Signal: Sendable {
  private struct State {
    var fired = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Protected(State())

  /// Fires the signal; idempotent. Resumes waiters outside the lock.
  func fire() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard !state.fired else { return [] }
      state.fired = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  var isFired: Bool { state.withLock { $0.fired } }

  /// Returns once the signal has fired (at once if it already has).
  func wait() async {
    await withCheckedContinuation { continuation in
      let fired = state.withLock { state -> Bool in
        if state.fired { return true }
        state.waiters.append(continuation)
        return false
      }
      if fired { continuation.resume() }
    }
  }
}

/// Suspends the current task until it is cancelled; returns at once if it already is.
func suspendUntilCancelled() async {
  let state = Protected<(cancelled: Bool, waiter: CheckedContinuation<Void, Never>?)>(
    (false, nil))
  await withTaskCancellationHandler {
    await withCheckedContinuation { continuation in
      let cancelled = state.withLock { state -> Bool in
        if state.cancelled { return true }
        state.waiter = continuation
        return false
      }
      if cancelled { continuation.resume() }
    }
  } onCancel: {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.cancelled = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }
}
