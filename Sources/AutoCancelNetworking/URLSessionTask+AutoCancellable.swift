import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A raw `URLSessionTask` goes in a bag like any work: `autoCancel(task)` or
/// `cancelBag.add(task)`. The bag cancels it without blocking when it ends or cancels its
/// work, and forgets it by itself once it has completed.
///
/// ```swift
/// let task = session.dataTask(with: url) { [weak self] data, _, _ in self?.show(data) }
/// autoCancel(task)   // [self autoCancelRequestOnDealloc:task];
/// task.resume()
/// ```
///
/// Prefer the helpers (`session.dataTask(with:in:label:completionHandler:)` and the async
/// `session.data(for:in:label:)`): they leave the bag the moment the task completes and, on
/// Linux, run the task on a session where cancelling is always safe.
///
/// ## Contract
///
/// - The task's completion handler receives `URLError(.cancelled)` when the bag cancels it.
/// - The bag never calls `URLSessionTask.cancel()` on the thread that ends it: the cancel runs
///   on a private serial queue, so ending a bag in a `deinit`, under a lock or in a Swift
///   cancellation handler cannot deadlock. (`cancel()` called directly, as on any task, is
///   Foundation's own.)
/// - On Linux the cancel is made at once, unless the task's session is asking its URL cache
///   for the request at that moment (the one moment a cancel can crash FoundationNetworking):
///   it then waits the millisecond or so the cache takes to answer. The same for tasks bound
///   before or after `resume()`, on any session. A task whose redirects its session's
///   delegate decides may still meet FoundationNetworking's own redirect defect if the cancel
///   falls during that decision: prefer the helpers there, which guard it.
/// - A completed task leaves the bag by itself, soon after it completed, without a call to
///   `CancelRegistration.finish()`, however the call site typed it. Cancelling a task that
///   completed meanwhile does nothing.
/// - A bag that has ended cancels the task before `add` returns; `resume()` then does
///   nothing, and nothing is sent.
extension URLSessionTask: AutoCancellable {
  /// Stores the task in a wrapper that cancels it without blocking and reports its
  /// completion.
  public static func _add(
    _ task: URLSessionTask, to insertion: _BagInsertion
  ) -> CancelRegistration {
    let work = RawTaskWork(task)
    let registration = insertion.addReportingFinish(work)
    // A cancel that came while the task was added (the bag had ended) is made now: before
    // `add` returns for a task never resumed, so that the caller's `resume()` sends nothing.
    work.added()
    return registration
  }
}
