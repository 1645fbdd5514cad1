import Foundation

/// The service the articles' samples call: `api.search(text)`.
///
/// A search returns `[text]` at once, unless a test called ``holdSearches(for:)`` with its
/// text: then it runs until it is cancelled, and ``wait(for:until:)`` lets the test wait for it
/// to start and to be cancelled. Each test uses texts of its own.
final class SampleAPI: Sendable {
  private struct State {
    var held: Set<String> = []
    var started: [String: Int] = [:]
    var cancelled: [String: Int] = [:]
    var waiters: [Waiter] = []
  }

  private struct Waiter {
    var text: String
    var predicate: @Sendable (_ started: Int, _ cancelled: Int) -> Bool
    var continuation: CheckedContinuation<Void, Never>
  }

  private let state = Locked(State())

  func search(_ text: String) async throws -> [String] {
    guard state.withLock({ $0.held.contains(text) }) else { return [text] }
    update(text) { $0.started[text, default: 0] += 1 }
    await suspendUntilCancelled()
    update(text) { $0.cancelled[text, default: 0] += 1 }
    throw CancellationError()
  }

  /// Makes searches for `text` run until they are cancelled.
  func holdSearches(for text: String) {
    state.withLock { _ = $0.held.insert(text) }
  }

  /// Held searches for `text` started and cancelled so far.
  func counts(for text: String) -> (started: Int, cancelled: Int) {
    state.withLock { ($0.started[text] ?? 0, $0.cancelled[text] ?? 0) }
  }

  /// Returns once `predicate(started, cancelled)` holds for `text`. Suites bound the wait with
  /// a time limit.
  func wait(
    for text: String,
    until predicate: @escaping @Sendable (_ started: Int, _ cancelled: Int) -> Bool
  ) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state in
        if predicate(state.started[text] ?? 0, state.cancelled[text] ?? 0) { return true }
        state.waiters.append(Waiter(text: text, predicate: predicate, continuation: continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  private func update(_ text: String, _ change: (inout State) -> Void) {
    let ready = state.withLock { state in
      change(&state)
      let started = state.started[text] ?? 0
      let cancelled = state.cancelled[text] ?? 0
      let isReady = { (waiter: Waiter) in
        waiter.text == text && waiter.predicate(started, cancelled)
      }
      let ready = state.waiters.filter(isReady)
      state.waiters.removeAll(where: isReady)
      return ready.map(\.continuation)
    }
    for continuation in ready { continuation.resume() }
  }
}

/// The service, as the samples name it.
let api = SampleAPI()

/// A value guarded by a lock.
final class Locked<Value>: @unchecked Sendable {
  // Safety: `value` is only touched inside `withLock`, under `lock`.
  private var value: Value
  private let lock = NSLock()

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

/// Suspends the current task until it is cancelled; returns at once if it already is.
func suspendUntilCancelled() async {
  let state = Locked<(cancelled: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
  await withTaskCancellationHandler {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
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
