#if canImport(FoundationNetworking)
  import Foundation
  import FoundationNetworking

  /// On Linux, the delegate of a twin session (``TwinSessions``): hands each task's events to
  /// its ``Transfer``, on ``TaskQueue``, and the caller's delegate what Foundation would give
  /// it for the task, on the caller's delegate queue, with the caller's session (and the twin's
  /// task, a task of the library's, never seen elsewhere):
  ///
  /// - decisions: `willPerformHTTPRedirection` (its answer reaches the task only while the
  ///   library has not cancelled it: ``Transfer/answerRedirect(_:_:)``) and `didReceive
  ///   challenge`;
  /// - events: an upload's `didSendBodyData`, a download's `didWriteData`, and a stream's
  ///   `didReceive response` (its disposition ignored, as FoundationNetworking ignores it).
  ///
  /// Not forwarded: a task's data, download file and completion, which its helper delivers
  /// as Foundation's completion handler would; metrics and `willCacheResponse`, which
  /// FoundationNetworking 6.3.1 never delivers for HTTP.
  final class TwinDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate,
    @unchecked Sendable
  {
    // Safety: `transfers` is read and written on `TaskQueue.queue` alone (this delegate's
    // queue, and where tasks are made); `original` is a box that any thread may read.

    private var transfers: [Int: Transfer] = [:]
    private let original: WeakSession

    init(original: WeakSession) {
      self.original = original
    }

    /// Hands the events of `task`, made on the twin and not resumed yet, to `transfer`.
    func route(_ task: URLSessionTask, to transfer: Transfer) {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      transfers[task.taskIdentifier] = transfer
    }

    private func transfer(of task: URLSessionTask) -> Transfer? {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      return transfers[task.taskIdentifier]
    }

    /// Runs `call` with the caller's session and delegate on the caller's delegate queue, or
    /// `otherwise` (here) when the session is gone or its delegate is not `Delegate`.
    private func forward<Delegate>(
      as _: Delegate.Type, _ call: @escaping @Sendable (URLSession, Delegate) -> Void,
      otherwise: () -> Void = {}
    ) {
      guard let caller = original.session, let delegate = caller.delegate as? Delegate else {
        return otherwise()
      }
      nonisolated(unsafe) let sendableDelegate = delegate
      caller.delegateQueue.addOperation { call(caller, sendableDelegate) }
    }

    // MARK: The task's own events

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
      let transfer = transfer(of: dataTask)
      transfer?.received(response)
      if transfer?.forwardsResponse == true {
        forward(as: (any URLSessionDataDelegate).self) { caller, delegate in
          delegate.urlSession(caller, dataTask: dataTask, didReceive: response) { _ in }
        }
      }
      completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      transfer(of: dataTask)?.received(data)
    }

    func urlSession(
      _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
      totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
      transfer(of: downloadTask)?.wrote(bytesWritten)
      forward(as: (any URLSessionDownloadDelegate).self) { caller, delegate in
        delegate.urlSession(
          caller, downloadTask: downloadTask, didWriteData: bytesWritten,
          totalBytesWritten: totalBytesWritten, totalBytesExpectedToWrite: totalBytesExpectedToWrite
        )
      }
    }

    func urlSession(
      _ session: URLSession, downloadTask: URLSessionDownloadTask,
      didFinishDownloadingTo location: URL
    ) {
      transfer(of: downloadTask)?.finishedDownloading(to: location)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
    ) {
      dispatchPrecondition(condition: .onQueue(TaskQueue.queue))
      transfers.removeValue(forKey: task.taskIdentifier)?.completed(task, error: error)
    }

    // MARK: What the caller's delegate hears

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
      totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
      forward(as: (any URLSessionTaskDelegate).self) { caller, delegate in
        delegate.urlSession(
          caller, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
          totalBytesExpectedToSend: totalBytesExpectedToSend)
      }
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      willPerformHTTPRedirection response: HTTPURLResponse, newRequest: URLRequest,
      completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
      guard let transfer = transfer(of: task) else { return completionHandler(newRequest) }
      forward(as: (any URLSessionTaskDelegate).self) { caller, delegate in
        delegate.urlSession(
          caller, task: task, willPerformHTTPRedirection: response, newRequest: newRequest
        ) { decision in
          TaskQueue.async { transfer.answerRedirect(decision, completionHandler) }
        }
      } otherwise: {
        transfer.answerRedirect(newRequest, completionHandler)
      }
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
      completionHandler:
        @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
      guard let transfer = transfer(of: task) else {
        return completionHandler(.performDefaultHandling, nil)
      }
      // FoundationNetworking retries with a credential and cancels on a refusal.
      let decide: @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void = {
        disposition, credential in
        let retries =
          (disposition == .useCredential && credential != nil)
          || (disposition == .performDefaultHandling && challenge.proposedCredential != nil)
        let refused =
          disposition == .cancelAuthenticationChallenge || disposition == .rejectProtectionSpace
        // FoundationNetworking acts on the decision inside this handler (suspending and
        // resuming the task): it is handed over where the task's calls are made.
        if transfer.challengeDecided(retries: retries, refused: refused) {
          transfer.calls.async { completionHandler(disposition, credential) }
        }
      }
      forward(as: (any URLSessionTaskDelegate).self) { caller, delegate in
        delegate.urlSession(caller, task: task, didReceive: challenge) { disposition, credential in
          TaskQueue.async { decide(disposition, credential) }
        }
      } otherwise: {
        decide(.performDefaultHandling, nil)
      }
    }
  }
#endif
