import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Stand-in for AutoCancelNetworking's `URLSession.dataTask(with:in:label:completionHandler:)`
// until that lands on main; then this file goes and `Screen` calls the library.

extension URLSession {
  /// A data task cancelled when `bag` ends, and removed from it when it completes.
  ///
  /// Only for sessions without a URL cache: on Linux, cancelling a task while its cached
  /// response lookup is pending can crash FoundationNetworking.
  func boundDataTask(
    with request: URLRequest, in bag: CancelBag, label: String,
    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  ) -> URLSessionDataTask {
    let registration = Locked<CancelRegistration?>(nil)
    let task = dataTask(with: request) { data, response, error in
      registration.withLock { $0 }?.finish()
      completionHandler(data, response, error)
    }
    let added = bag.add(TaskCancellation(task: task), label: label)
    registration.withLock { $0 = added }
    return task
  }
}

/// Cancels a URLSession task when its bag ends. The bag calls it after releasing its lock,
/// and never from a Swift cancellation handler, so `URLSessionTask.cancel()` cannot deadlock.
private struct TaskCancellation: AutoCancellable {
  let task: URLSessionTask

  func cancel() {
    task.cancel()
  }
}
