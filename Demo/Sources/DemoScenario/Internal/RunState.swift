import AutoCancel

/// What the app side of one run has done so far: requests started and ended, screens opened
/// and left; and who is waiting for which requests to end.
///
/// Safe from any thread: URLSession completion handlers report here, the simulated people
/// wait here. Continuations are resumed after the lock is released.
final class RunState: Sendable {
  private struct Waiter {
    var ids: Set<String>
    var continuation: CheckedContinuation<Void, Never>
  }

  private struct State {
    var started: [String] = []
    var ended: Set<String> = []
    var deliveredAfterScreenLeft = 0
    var endedWithError = 0
    var screensOpened = 0
    var screensLeft = 0
    var waiters: [Waiter] = []
  }

  /// Counters for the progress line and the result.
  struct Counts: Sendable {
    var started: Int
    var ended: Int
    var deliveredAfterScreenLeft: Int
    var endedWithError: Int
    var screensOpened: Int
    var screensLeft: Int
  }

  private let state = Locked(State())

  func requestStarted(_ id: String) {
    state.withLock { $0.started.append(id) }
  }

  /// Called once per request, from its completion handler.
  func requestEnded(_ id: String, screenStillThere: Bool, failed: Bool) {
    let ready: [CheckedContinuation<Void, Never>] = state.withLock { state in
      state.ended.insert(id)
      if !screenStillThere && !failed { state.deliveredAfterScreenLeft += 1 }
      if failed { state.endedWithError += 1 }
      var ready: [CheckedContinuation<Void, Never>] = []
      state.waiters.removeAll { waiter in
        guard waiter.ids.isSubset(of: state.ended) else { return false }
        ready.append(waiter.continuation)
        return true
      }
      return ready
    }
    for continuation in ready { continuation.resume() }
  }

  func screenOpened() {
    state.withLock { $0.screensOpened += 1 }
  }

  func screenLeft() {
    state.withLock { $0.screensLeft += 1 }
  }

  /// Returns once every request in `ids` has ended (at once if they all have).
  func waitUntilEnded(_ ids: Set<String>) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let done: Bool = state.withLock { state in
        if ids.isSubset(of: state.ended) { return true }
        state.waiters.append(Waiter(ids: ids, continuation: continuation))
        return false
      }
      if done { continuation.resume() }
    }
  }

  /// Those of `ids` whose completion handler has run.
  func ended(among ids: [String]) -> Set<String> {
    state.withLock { state in Set(ids.filter { state.ended.contains($0) }) }
  }

  /// The ids of the requests started, in the order they were started.
  var startedIDs: [String] {
    state.withLock { $0.started }
  }

  var counts: Counts {
    state.withLock {
      Counts(
        started: $0.started.count, ended: $0.ended.count,
        deliveredAfterScreenLeft: $0.deliveredAfterScreenLeft, endedWithError: $0.endedWithError,
        screensOpened: $0.screensOpened, screensLeft: $0.screensLeft)
    }
  }
}
