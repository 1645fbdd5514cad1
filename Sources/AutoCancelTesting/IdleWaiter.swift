import AutoCancel

/// One answer to one waiter: the first `resolve` wins, and resumes the waiter if it waits.
final class IdleWaiter: Sendable {
  private enum State: Sendable {
    case waiting(CheckedContinuation<Bool, Never>?)
    case resolved(Bool)
  }

  /// The package's one lock; a continuation is resumed after it.
  private let state = Locked(State.waiting(nil))

  /// Gives the answer, unless one was given; resumes the waiter after the lock.
  func resolve(_ value: Bool) {
    let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
      guard case .waiting(let continuation) = state else { return nil }
      state = .resolved(value)
      return continuation
    }
    continuation?.resume(returning: value)
  }

  /// Suspends until the answer is given (at once if it was).
  func result() async -> Bool {
    await withCheckedContinuation { continuation in
      let resolved = state.withLock { state -> Bool? in
        if case .resolved(let value) = state { return value }
        state = .waiting(continuation)
        return nil
      }
      if let resolved { continuation.resume(returning: resolved) }
    }
  }
}
