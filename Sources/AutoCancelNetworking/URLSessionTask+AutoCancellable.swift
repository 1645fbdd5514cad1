import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A raw `URLSessionTask` can go in a bag; the bag cancels it without blocking.
///
/// ```swift
/// let task = session.dataTask(with: url) { data, response, error in ... }
/// cancelBag.add(task)
/// task.resume()
/// ```
///
/// Prefer the helpers (``FoundationNetworking/URLSession/dataTask(with:in:label:completionHandler:)-(URLRequest,_,_,_)``
/// and the async ``FoundationNetworking/URLSession/data(for:in:label:)``): they also remove the task
/// from the bag when it completes, report the reason, and on Linux run the task on a session
/// where cancelling is always safe. A raw task stays in the bag until the bag ends; call
/// `CancelRegistration.finish()` from its completion handler to remove it earlier.
extension URLSessionTask: ReasonAwareCancellable {
  /// Cancels the task from a private serial queue and returns at once.
  ///
  /// Called by a bag, once, from any thread. The task's completion handler receives
  /// `URLError.cancelled` (the bag cannot pass its reason through a raw task).
  ///
  /// On Linux, cancelling a data or upload task while its session is still looking the request
  /// up in its URL cache can crash FoundationNetworking. The library cannot see a raw task's
  /// session, so for data and upload tasks it waits until the task is past that lookup (a
  /// response or bytes moved, or it completed). The task is then cancelled a little later
  /// than it would be by the helpers, and a task whose server never answers is only stopped
  /// by its timeout. Sessions whose cache is a ``CancelSafeURLCache`` are safe either way.
  ///
  /// ```swift
  /// cancelBag.add(task)   // the bag calls cancel(reason:) when it ends
  /// ```
  public func cancel(reason: CancellationReason) {
    #if canImport(FoundationNetworking)
      TaskCanceller.cancel(
        self, waitForLookup: self is URLSessionDataTask, on: TaskCanceller.sharedQueue(for: self))
    #else
      TaskCanceller.cancel(
        self, waitForLookup: false, on: TaskCanceller.sharedQueue(for: self))
    #endif
  }
}
