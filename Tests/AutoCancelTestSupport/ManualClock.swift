import Testing

/// A clock that only moves when a test advances it, so deadline tests wait for outcomes
/// instead of for real time.
@available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
package final class ManualClock: Clock, Sendable {
  package struct Instant: InstantProtocol {
    package var offset: Duration
    package init(offset: Duration) { self.offset = offset }
    package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    package func duration(to other: Instant) -> Duration { other.offset - offset }
    package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper: Sendable {
    var deadline: Instant
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct State: Sendable {
    var now = Instant(offset: .zero)
    var sleepers: [Int: Sleeper] = [:]
    var cancelledBeforeSleeping: Set<Int> = []
    var nextID = 0
  }

  private let state = Protected(State())

  package init() {}

  package var now: Instant { state.withLock { $0.now } }
  package var minimumResolution: Duration { .nanoseconds(1) }

  /// How many sleepers wait now.
  package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let outcome: Result<Void, any Error>? = state.withLock { state in
          if state.cancelledBeforeSleeping.remove(id) != nil {
            return .failure(CancellationError())
          }
          if deadline <= state.now { return .success(()) }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let sleeper = state.withLock { state in
        let sleeper = state.sleepers.removeValue(forKey: id)
        if sleeper == nil { state.cancelledBeforeSleeping.insert(id) }
        return sleeper
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves time forward, waking every sleeper whose deadline has come.
  package func advance(by duration: Duration) {
    let due = state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let due = state.sleepers.filter { $0.value.deadline <= state.now }
      for id in due.keys { state.sleepers[id] = nil }
      return due.values.map(\.continuation)
    }
    for continuation in due { continuation.resume() }
  }

  /// Returns once exactly `count` sleepers wait (a bounded wait: see ``waitUntil``).
  @discardableResult
  package func waitForSleepers(
    _ count: Int, timeout: Double = waitBound, sourceLocation: SourceLocation = #_sourceLocation
  ) async -> Bool {
    await waitUntil("\(count) sleepers wait", timeout: timeout, sourceLocation: sourceLocation) {
      sleeperCount == count
    }
  }
}
