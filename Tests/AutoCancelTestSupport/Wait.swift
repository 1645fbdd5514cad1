import Dispatch
import Foundation
import Testing

/// How long a test waits for an outcome before it gives up, in seconds.
///
/// A safety net, not a measurement: far longer than any outcome takes on a loaded machine
/// (scripts/reliability/under-load.sh reports the slowest wait of its runs), so that passing
/// it means the outcome will never come. A third of the suites' one-minute time limit, so that
/// a missed outcome fails with the wait's message, naming what it waited for, instead of as a
/// bare time-out.
package let waitBound: Double = 20

/// Returns once `condition` holds: the one way the tests wait for an outcome.
///
/// Checks at once, then yields, then polls at a growing interval (1 ms, doubling up to 8 ms):
/// for state that nothing announces; an event that the test can signal is a ``Gate``, which
/// suspends without polling. Gives up, returning `false`, if
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
  let started = DispatchTime.now()
  let deadline = started.uptimeNanoseconds + UInt64(timeout * 1_000_000_000)
  var polls = 0
  var interval: UInt64 = 1_000_000
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
      try? await Task.sleep(nanoseconds: interval)
      interval = min(interval * 2, 8_000_000)
    }
  }
  WaitLog.record(since: started, what(), sourceLocation)
  return true
}

/// Suspends the current task until it is cancelled; returns at once if it already is.
///
/// After ``waitBound`` seconds without a cancel, records an issue and returns.
package func suspendUntilCancelled(sourceLocation: SourceLocation = #_sourceLocation) async {
  await Gate().wait("the task is cancelled", sourceLocation: sourceLocation)
}

/// How long the tests' waits took, printed when `AUTOCANCEL_WAIT_LOG` is set to a number of
/// seconds: every wait that took at least that long prints one line,
/// `AUTOCANCEL_WAIT_LOG: wait took 1.234 s until <what> (File.swift:12)`. Off by default; the
/// outcome of a test never depends on it. scripts/reliability/under-load.sh sets it to 1 and
/// reports the slowest wait of each run, which ``waitBound`` must clear.
package enum WaitLog {
  /// The threshold in seconds, or `nil` when the log is off.
  static let threshold: Double? = ProcessInfo.processInfo.environment["AUTOCANCEL_WAIT_LOG"]
    .flatMap { Double($0) }

  /// Logs a wait that began at `start` and just saw its outcome, if it took long enough.
  static func record(
    since start: DispatchTime, _ what: @autoclosure () -> String, _ location: SourceLocation
  ) {
    guard let threshold else { return }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    guard seconds >= threshold else { return }
    let text = (seconds * 1000).rounded() / 1000
    print(
      "AUTOCANCEL_WAIT_LOG: wait took \(text) s until \(what()) "
        + "(\(location.fileID):\(location.line))")
  }
}
