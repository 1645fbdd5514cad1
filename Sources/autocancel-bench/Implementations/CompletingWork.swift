/// The work item of S8: like `Work` (a class with a trivial `cancel()`), and it completes
/// and says so through `isFinished`, as a request object does when its response arrives.
///
/// Safety: `finished` is written by `complete()` and read by the bag it is bound to; S8
/// completes, binds and lets the bag look at its items on one thread, so the two never race.
final class CompletingWork: FinishReporting, @unchecked Sendable {
  private var finished = false

  init() {}

  var isFinished: Bool { finished }

  /// The work completed normally.
  func complete() { finished = true }

  func cancel() {}
}
