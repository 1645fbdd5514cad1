import AutoCancel

/// Class work that conforms to `AutoCancellable` here, in another module than the tests, and
/// can complete: a test module may then conform it to `FinishReporting` after the fact, as
/// an app does with a request type from a library of its own.
package final class ForeignRequest: AutoCancellable, Sendable {
  private let completed = Protected(false)
  private let cancels = Protected(0)

  package init() {}

  /// Marks the request done.
  package func complete() { completed.withLock { $0 = true } }

  /// Whether ``complete()`` was called.
  package var hasCompleted: Bool { completed.current }

  package func cancel() { cancels.withLock { $0 += 1 } }

  /// How many times ``cancel()`` ran.
  package var cancelCount: Int { cancels.current }
}
