/// A follower of whether work runs under one key: keeps the newest change, and hands it to its
/// reader when the reader asks, unless it equals the last value handed.
///
/// Changes are decided under the bag's lock, each with a number one higher than the last, but
/// offered after it, on the threads that caused them: two threads may offer theirs in either
/// order, and the observer keeps the one with the higher number. The reader pulls: a value is
/// decided when it is read, against the last one read, so that however slowly the reader reads
/// it never reads the same value twice in a row, and the last value it reads is the key's state
/// after the last change. Nothing is resumed under a lock.
final class KeyObserver: Sendable {
  private struct State: Sendable {
    /// The newest change offered: its number and the key's state after it.
    var version: UInt64 = 0
    var isRunning = false
    /// Whether a change was offered yet (the first one is the state when following began).
    var hasValue = false
    /// The last state handed to the reader.
    var handed: Bool?
    /// Following ends once the newest state is handed.
    var ends = false
    /// The reader was told the end, or went away: nothing more is handed.
    var isFinished = false
    /// The reader, waiting for a value to differ from the last one handed.
    var waiter: UnsafeContinuation<Bool?, Never>?

    /// What the reader gets now: a value, the end, or nothing yet.
    mutating func take() -> Step {
      if isFinished { return .end }
      if hasValue, handed != isRunning {
        handed = isRunning
        return .value(isRunning)
      }
      if ends {
        isFinished = true
        return .end
      }
      return .wait
    }
  }

  private enum Step {
    case value(Bool)
    case end
    case wait
  }

  /// Unique among the observers of the bag.
  let id: Int
  private let state = Locked(State())

  init(id: Int) {
    self.id = id
  }

  /// Offers change number `version`, after which the key is running or not; `ends` says that
  /// nothing will follow it. Call after the bag's lock; resumes a waiting reader on this
  /// thread.
  func offer(isRunning: Bool, version: UInt64, ends: Bool) {
    let resume = state.withLock { state -> (UnsafeContinuation<Bool?, Never>, Bool?)? in
      if !state.hasValue || version > state.version {
        (state.version, state.isRunning, state.hasValue) = (version, isRunning, true)
      }
      if ends { state.ends = true }
      guard let waiter = state.waiter else { return nil }
      switch state.take() {
      case .wait: return nil
      case .value(let value):
        state.waiter = nil
        return (waiter, value)
      case .end:
        state.waiter = nil
        return (waiter, nil)
      }
    }
    if let (waiter, value) = resume { waiter.resume(returning: value) }
  }

  /// The key's state once it differs from the last value read, or nil once following ended.
  /// One reader at a time.
  func next() async -> Bool? {
    await withUnsafeContinuation { continuation in
      let step = state.withLock { state -> Step in
        let step = state.take()
        if case .wait = step { state.waiter = continuation }
        return step
      }
      switch step {
      case .value(let value): continuation.resume(returning: value)
      case .end: continuation.resume(returning: nil)
      case .wait: break
      }
    }
  }

  /// Stops at once: the reader went away. A waiting read returns nil.
  func stop() {
    let waiter = state.withLock { state -> UnsafeContinuation<Bool?, Never>? in
      state.isFinished = true
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: nil)
  }
}
