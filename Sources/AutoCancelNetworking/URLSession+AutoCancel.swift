import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// URLSession tasks bound to a `CancelBag`, with completion handlers.
///
/// Each method is Foundation's, plus `in: bag`: the task is cancelled when the bag ends or
/// cancels its work (its owner goes away, `CancelBag.end(reason:)`,
/// `CancelBag.cancelAll(reason:)`, a key replacement, a deadline) and leaves the bag the
/// moment it completes.
///
/// ```swift
/// final class AvatarView: AutoCancelOwner {
///   let cancelBag = CancelBag()
///   func load(_ url: URL) {
///     URLSession.shared.dataTask(with: url, in: cancelBag) { data, _, error in
///       if let error, error.isCancellation { return }  // the view went away: nothing to show
///       ...
///     }.resume()
///   }
/// }
/// ```
///
/// > Important: Never capture the owner strongly in the handler. URLSession holds the handler
/// > until it runs, so a strong capture keeps the owner, and its bag, alive until the request
/// > ends, and the owner going away can no longer cancel it.
///
/// ## Contract (all helpers)
///
/// - Like Foundation, the task is returned suspended: call `resume()`. It is made on the
///   calling thread, as Foundation's own call makes it (on Linux, on the twin below).
/// - The task behaves as `self`'s own: its configuration (cache, cookies, headers, protocol
///   classes, timeouts) applies, `self`'s delegate decides its redirects and authentication
///   challenges and hears its upload's or download's progress, and the handler runs on
///   `self`'s delegate queue. On Apple platforms it is `self`'s task. On Linux it is a task of
///   a twin the library keeps beside `self`: a copy of its configuration whose URL cache
///   answers lookups synchronously (a ``CancelSafeURLCache`` around `self`'s own), so that no
///   cancel can be parked behind a lookup and crash FoundationNetworking, and whose delegate,
///   the library's, hands `self`'s delegate those decisions and events, with `self` as their
///   session, on `self`'s delegate queue. The twin is invalidated soon after `self` is gone.
/// - The completion handler runs exactly once, with what URLSession hands it (body, response
///   and error, a response included with an error), unless the bag cancelled the task first:
///   it then receives `(nil, nil, URLError(.cancelled))`, as Foundation reports a cancelled
///   task, on the session's delegate queue, at once, without waiting for the network to wind
///   down. `error.isCancellation` is true for it. The bag's reason reaches the bag's observers,
///   and `CancelBag.endReason` once the bag has ended. A download cancelled this way has no
///   resume data.
/// - The bag's cancel never blocks: `URLSessionTask.cancel()` runs later, on the library's own
///   serial queue, so ending a bag in a `deinit`, under a lock or in a Swift cancellation
///   handler cannot deadlock. On Linux a redirect decision that comes after that cancel never
///   reaches the task (FoundationNetworking stops the process on one).
/// - A bag that has already ended cancels the task before it is returned; `resume()` then
///   does nothing, nothing is sent, and the handler receives `URLError(.cancelled)`.
extension URLSession {
  /// Creates a data task for `request`, cancelled when `bag` ends.
  ///
  /// See the contract above. Call `resume()` on the result.
  ///
  /// ```swift
  /// session.dataTask(with: request, in: cancelBag) { data, response, error in ... }.resume()
  /// ```
  ///
  /// - Parameters:
  ///   - request: The request.
  ///   - bag: The bag that cancels the task when it ends.
  ///   - label: A name for the work in the bag's snapshot and events.
  ///   - file: The call's `#fileID`, kept as its `CallSite`: leave the default.
  ///   - line: The call's `#line`: leave the default.
  ///   - completionHandler: Called exactly once; see the contract above.
  public func dataTask(
    with request: URLRequest, in bag: CancelBag, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line,
    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  ) -> URLSessionDataTask {
    boundTask(
      .data(request), in: bag, label: label, file: file, line: line,
      completionHandler: completionHandler) as! URLSessionDataTask
  }

  /// Creates a data task for `url`, cancelled when `bag` ends.
  ///
  /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
  ///
  /// See ``dataTask(with:in:label:file:line:completionHandler:)-(URLRequest,_,_,_,_,_)``.
  ///
  /// ```swift
  /// session.dataTask(with: url, in: cancelBag) { data, response, error in ... }.resume()
  /// ```
  public func dataTask(
    with url: URL, in bag: CancelBag, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line,
    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  ) -> URLSessionDataTask {
    dataTask(
      with: URLRequest(url: url), in: bag, label: label, file: file, line: line,
      completionHandler: completionHandler)
  }

  /// Creates an upload task sending `bodyData`, cancelled when `bag` ends.
  ///
  /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
  ///
  /// See the contract above. Call `resume()` on the result.
  ///
  /// ```swift
  /// session.uploadTask(with: request, from: json, in: cancelBag) { data, _, error in ... }
  ///   .resume()
  /// ```
  public func uploadTask(
    with request: URLRequest, from bodyData: Data, in bag: CancelBag, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line,
    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  ) -> URLSessionUploadTask {
    boundTask(
      .upload(request, bodyData), in: bag, label: label, file: file, line: line,
      completionHandler: completionHandler) as! URLSessionUploadTask
  }

  /// Creates an upload task sending the file at `fileURL`, cancelled when `bag` ends.
  ///
  /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
  ///
  /// See the contract above. Call `resume()` on the result.
  ///
  /// ```swift
  /// session.uploadTask(with: request, fromFile: video, in: cancelBag) { _, _, error in ... }
  ///   .resume()
  /// ```
  public func uploadTask(
    with request: URLRequest, fromFile fileURL: URL, in bag: CancelBag, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line,
    completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
  ) -> URLSessionUploadTask {
    boundTask(
      .uploadFile(request, fileURL), in: bag, label: label, file: file, line: line,
      completionHandler: completionHandler) as! URLSessionUploadTask
  }

  /// Creates a download task for `request`, cancelled when `bag` ends.
  ///
  /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
  ///
  /// See the contract above. As with Foundation, move the file before the handler returns.
  ///
  /// ```swift
  /// session.downloadTask(with: request, in: cancelBag) { file, _, error in ... }.resume()
  /// ```
  public func downloadTask(
    with request: URLRequest, in bag: CancelBag, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line,
    completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
  ) -> URLSessionDownloadTask {
    boundTask(
      .download(request), in: bag, label: label, file: file, line: line,
      completionHandler: completionHandler) as! URLSessionDownloadTask
  }

  /// Creates a download task for `url`, cancelled when `bag` ends.
  ///
  /// Keeps the call's `file` and `line` as the item's `CallSite` while call sites are on.
  ///
  /// See ``downloadTask(with:in:label:file:line:completionHandler:)-(URLRequest,_,_,_,_,_)``.
  ///
  /// ```swift
  /// session.downloadTask(with: url, in: cancelBag) { file, _, error in ... }.resume()
  /// ```
  public func downloadTask(
    with url: URL, in bag: CancelBag, label: String? = nil,
    file: StaticString = #fileID, line: UInt = #line,
    completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
  ) -> URLSessionDownloadTask {
    downloadTask(
      with: URLRequest(url: url), in: bag, label: label, file: file, line: line,
      completionHandler: completionHandler)
  }
}

extension URLSession {
  /// The one path by which the completion-handler helpers make their task: registers a
  /// ``TaskRequest`` in `bag`, then has it make its task, on the library's queue.
  func boundTask<Body: TransferredBody>(
    _ spec: TaskSpec, in bag: CancelBag, label: String?, file: StaticString, line: UInt,
    completionHandler: @escaping TaskRequest<Body>.Handler
  ) -> URLSessionTask {
    let request = TaskRequest<Body>(
      spec, delivery: .handler(completionHandler, queue: .init(operationQueue: delegateQueue)))
    let registration = request.register(in: bag, label: label, file: file, line: line)
    return request.taskForCaller(on: self, registration: registration)
  }
}
