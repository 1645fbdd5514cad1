import Dispatch
import Testing

/// How long a test waits for an outcome before it gives up, in seconds.
///
/// A safety net, not a measurement: far longer than any outcome takes on a loaded machine
/// under ThreadSanitizer, so that passing it means the outcome will never come. Shorter than
/// the suites' one-minute time limit, so that a missed outcome fails with the wait's message.
package let waitBound: Double = 45

/// Returns once `condition` holds: the one way the tests wait for an outcome.
///
/// Checks at once, then yields and polls every millisecond. Gives up, returning `false`, if
/// the task is cancelled (the test's time limit, or the test itself, ended the wait) or if
/// `timeout` seconds pass; passing the bound records an issue naming `what` at the caller, so
/// the test fails with a message instead of hanging. Never asserts how long the wait took.
///
/// ```swift
/// await waitUntil("both callers share the request") { shared.callerCount(for: key) == 2 }
/// ```
@discardableResult
package func waitUntil(
  _ what: @autoclosure () -> String, timeout: Double = waitBound,
  sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async -> Bool {
  await poll(isolation: nil, what(), timeout: timeout, sourceLocation, condition)
}

/// ``waitUntil(_:timeout:sourceLocation:_:)`` for state that only the main actor may read:
/// `condition` runs on the main actor, and main-actor work runs between its checks.
///
/// ```swift
/// await waitUntilOnMainActor("the model shows the save") { model.isSaving }
/// ```
@MainActor @discardableResult
package func waitUntilOnMainActor(
  _ what: @autoclosure () -> String, timeout: Double = waitBound,
  sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async -> Bool {
  await poll(isolation: MainActor.shared, what(), timeout: timeout, sourceLocation, condition)
}

/// The bounded wait of both forms, on `isolation`.
private func poll(
  isolation: isolated (any Actor)?, _ what: @autoclosure () -> String, timeout: Double,
  _ sourceLocation: SourceLocation, _ condition: () -> Bool
) async -> Bool {
  let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1_000_000_000)
  var polls = 0
  while !condition() {
    if Task.isCancelled { return false }
    if DispatchTime.now().uptimeNanoseconds >= deadline {
      Issue.record("Waited \(timeout) s in vain until \(what())", sourceLocation: sourceLocation)
      return false
    }
    polls += 1
    if polls <= 16 {
      await Task.yield()
    } else {
      // Ends early when the task is cancelled.
      try? await Task.sleep(nanoseconds: 1_000_000)
    }
  }
  return true
}
