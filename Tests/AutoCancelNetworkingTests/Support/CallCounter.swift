import AutoCancelTestSupport

/// A thread-safe tally of calls per key: completion-handler calls per request, outcomes.
final class CallCounter: Sendable {
  private let calls = Protected<[Int: Int]>([:])

  func record(_ key: Int) { calls.withLock { $0[key, default: 0] += 1 } }
  var counts: [Int: Int] { calls.withLock { $0 } }
}
