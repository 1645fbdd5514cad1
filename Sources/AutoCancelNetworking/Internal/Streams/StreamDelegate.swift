import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking

  /// On Linux, the delegate of a stream twin (``TwinSessions``): hands each task's response,
  /// data and completion to its ``StreamRequest``, and the decisions that belong to the
  /// caller (redirects, authentication challenges) to the delegate of the caller's session,
  /// on that session's delegate queue.
  ///
  /// The caller's delegate receives the caller's session and the twin's task (a task of the
  /// library's, never seen elsewhere). Redirect answers go back through the request's
  /// ``RedirectGate``, so that a cancel never meets a late one.
  final class StreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let requests = Locked<[Int: StreamRequest]>([:])
    private let original: WeakSession

    init(original: URLSession) {
      self.original = WeakSession(original)
    }

    func register(_ request: StreamRequest, for task: URLSessionTask) {
      requests.withLock { $0[task.taskIdentifier] = request }
    }

    private func request(for task: URLSessionTask, removing: Bool = false) -> StreamRequest? {
      requests.withLock {
        removing ? $0.removeValue(forKey: task.taskIdentifier) : $0[task.taskIdentifier]
      }
    }

    /// The caller's session and its task delegate, while the session exists.
    private var callerDelegate: (URLSession, any URLSessionTaskDelegate)? {
      guard let session = original.session,
        let delegate = session.delegate as? any URLSessionTaskDelegate
      else { return nil }
      return (session, delegate)
    }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
      // FoundationNetworking delivers a 401's head and body before it asks about the
      // challenge it carries (`URLSessionTask.swift:1102-1136` at 6.3.1).
      if let http = response as? HTTPURLResponse, http.statusCode == 401,
        http.value(forHTTPHeaderField: "WWW-Authenticate") != nil
      {
        request(for: dataTask)?.receivedChallenge(response)
      } else {
        request(for: dataTask)?.received(response)
      }
      completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      request(for: dataTask)?.received(data)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
    ) {
      request(for: task, removing: true)?.completed(error)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      willPerformHTTPRedirection response: HTTPURLResponse, newRequest: URLRequest,
      completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
      let gate = request(for: task)?.gate
      let decide: @Sendable (URLRequest?) -> Void = { decision in
        guard let gate else { return completionHandler(decision) }
        gate.answer { completionHandler(decision) }
      }
      guard let (caller, delegate) = callerDelegate else { return decide(newRequest) }
      caller.delegateQueue.addOperation {
        delegate.urlSession(
          caller, task: task, willPerformHTTPRedirection: response, newRequest: newRequest,
          completionHandler: decide)
      }
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
      completionHandler:
        @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
      let streamed = request(for: task)
      // FoundationNetworking retries with a credential, cancels on a refusal, and otherwise
      // leaves the task waiting: then the 401 is the answer.
      let decide: @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void = {
        disposition, credential in
        let retries =
          (disposition == .useCredential && credential != nil)
          || (disposition == .performDefaultHandling && challenge.proposedCredential != nil)
        if !retries && disposition != .cancelAuthenticationChallenge {
          streamed?.challengeEndsWithoutRetry()
        }
        completionHandler(disposition, credential)
      }
      guard let (caller, delegate) = callerDelegate else {
        return decide(.performDefaultHandling, nil)
      }
      caller.delegateQueue.addOperation {
        delegate.urlSession(caller, task: task, didReceive: challenge, completionHandler: decide)
      }
    }
  }

  /// A session held without keeping it alive.
  final class WeakSession: @unchecked Sendable {
    // Safety: written once, in `init`, before the box is shared; Swift's weak references may
    // then be read from any thread.
    private(set) weak var session: URLSession?

    init(_ session: URLSession) { self.session = session }
  }
#else
  /// On Apple platforms, the per-task delegate of a stream made on the caller's own session:
  /// receives its response, data and completion. Everything it does not implement (redirects,
  /// challenges, server trust, metrics) goes to the session's delegate, as for the caller's
  /// other tasks.
  final class StreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let request: StreamRequest

    init(_ request: StreamRequest) { self.request = request }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
      request.received(response)
      completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      request.received(data)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
    ) {
      request.completed(error)
    }
  }
#endif
