import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension CancelBag {
  /// Adds a raw `URLSessionTask`: the bag cancels it, without blocking, when it ends or
  /// cancels its work, and forgets it by itself once it has completed.
  ///
  /// ```swift
  /// let task = session.dataTask(with: url) { data, response, error in ... }
  /// cancelBag.add(task)
  /// task.resume()
  /// ```
  ///
  /// Prefer the helpers (``FoundationNetworking/URLSession/dataTask(with:in:label:completionHandler:)-(URLRequest,_,_,_)``
  /// and the async ``FoundationNetworking/URLSession/data(for:in:label:)``): they leave the bag
  /// the moment the task completes and, on Linux, run the task on a session where
  /// cancelling is always safe.
  ///
  /// ## Contract
  ///
  /// - The task's completion handler receives `URLError(.cancelled)` when the bag cancels it.
  /// - `URLSessionTask.cancel()` runs later on a private serial queue, never on the thread
  ///   that ends the bag, so ending a bag in a `deinit`, under a lock or in a Swift
  ///   cancellation handler cannot deadlock.
  /// - A completed task leaves the bag without a call to `CancelRegistration.finish()`: the
  ///   bag looks for completed work as it grows, so a long-lived owner holds only the tasks
  ///   in flight and a few completed ones, and frees the rest. Cancelling a task that
  ///   completed meanwhile does nothing.
  /// - On Linux, a data or upload task on a session whose cache is not a
  ///   ``CancelSafeURLCache`` is cancelled only once it is past its cache lookup (a response
  ///   head or bytes moved): a task whose server never answers is then stopped by its
  ///   timeout.
  /// - A bag that has ended cancels the task before this returns; `resume()` then does
  ///   nothing.
  ///
  /// - Parameters:
  ///   - task: The task, resumed or not.
  ///   - key: Replaces (cancels) the work added earlier with an equal key.
  ///   - label: A name for the work in the bag's snapshot and events.
  /// - Returns: The task's registration.
  @discardableResult
  public func add(
    _ task: URLSessionTask, key: (any Hashable & Sendable)? = nil, label: String? = nil
  ) -> CancelRegistration {
    add(RawTaskWork(task), key: key, label: label)
  }
}
