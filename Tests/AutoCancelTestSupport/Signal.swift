import Testing

/// A one-shot event that tasks can wait for: fired once, then every wait returns.
///
/// Waiting for a signal is how tests wait for outcomes without sleeping. Safe from any thread.
package final class Signal: Sendable {
  private let fired = Protected(false)

  package init() {}

  /// Fires the signal; idempotent.
  package func fire() {
    fired.withLock { $0 = true }
  }

  /// Whether the signal has fired.
  package var isFired: Bool { fired.current }

  /// Returns once the signal has fired (at once if it already has), or the task is
  /// cancelled; after ``waitBound`` seconds, records an issue and returns.
  package func wait(sourceLocation: SourceLocation = #_sourceLocation) async {
    await waitUntil("the signal fires", sourceLocation: sourceLocation) { isFired }
  }
}

/// Suspends the current task until it is cancelled; returns at once if it already is.
///
/// After ``waitBound`` seconds without a cancel, records an issue and returns.
package func suspendUntilCancelled(sourceLocation: SourceLocation = #_sourceLocation) async {
  await waitUntil("the task is cancelled", sourceLocation: sourceLocation) { Task.isCancelled }
}
