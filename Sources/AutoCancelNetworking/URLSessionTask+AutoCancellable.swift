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
/// - The bag cancels the task once. It never calls `URLSessionTask.cancel()` on the thread
///   that ends it: the cancel runs on the library's own serial queue, so ending a bag in a
///   `deinit`, under a lock or in a Swift cancellation handler cannot deadlock. (`cancel()`
///   called directly, as on any task, is Foundation's own.)
/// - A bag that has ended cancels the task before `add` returns, on the calling thread (the
///   one cancel the library makes there); `resume()` then does nothing, and nothing is sent.
/// - A completed task leaves the bag by itself, soon after it completed, without a call to
///   `CancelRegistration.finish()`, however the call site typed it. Cancelling a task that
///   completed meanwhile does nothing.
///
/// ## On Linux
///
/// The task is the app's, on the app's session, and FoundationNetworking crashes the process
/// when a task is cancelled while its session's URL cache is still being asked for the
/// request, an answer that comes on another thread. The library's cancel waits for that
/// answer: it reads, under the task's own lock, where FoundationNetworking keeps the state of
/// the lookup (a private property, found by its name), and anything it does not recognise makes
/// it wait rather than cancel, until the task shows a response head or a body being sent, or
/// its timeout ends it. Give a session whose tasks you bind or cancel yourself a cache that
/// answers at once, and nothing needs to wait:
///
/// ```swift
/// configuration.urlCache = CancelSafeURLCache(wrapping: .shared)
/// ```
///
/// A task whose redirects its session's delegate decides may also meet FoundationNetworking's
/// redirect defect if the cancel falls during that decision: prefer the helpers there, whose
/// redirect answers never follow their cancel.
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
