import AutoCancel

/// The work item of S8: like `Work` (a class with a trivial `cancel()`), and it completes
/// and says so through `FinishReporting.isFinished`, as a request object does when its
/// response arrives, so the bag can let it go without a `finish()` call.
///
/// Safety: `finished` is written by `complete()` and read through `isFinished` by the bag it
/// is bound to. S8 binds, completes and lets the bag look at its items on one thread, so the
/// two never race; work used across threads would keep the flag behind a lock or an atomic.
final class CompletingWork: FinishReporting, @unchecked Sendable {
  private var finished = false

  init() {}

  var isFinished: Bool { finished }

  /// The work completed normally.
  func complete() { finished = true }

  func cancel() {}
}
