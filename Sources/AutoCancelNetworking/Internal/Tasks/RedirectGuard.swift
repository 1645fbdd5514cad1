import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking

  /// On Linux, the per-task delegate of a helper's task on a session whose delegate decides
  /// redirects: it hands each decision to that delegate, and the answer back through the
  /// request's ``RedirectGate``, so that a cancel never meets a late redirect answer.
  ///
  /// Everything else it does not implement, and FoundationNetworking's defaults pass it on to
  /// the session's delegate (`URLSessionDelegate.swift:137-186, 249-269` at 6.3.1): challenges,
  /// body streams, cache decisions. Responses, data and completions never go to a per-task
  /// delegate there. Sessions without such a delegate follow redirects inline, with nothing to
  /// wait for, and get no guard (a per-task delegate would make them wait).
  final class RedirectGuard: NSObject, URLSessionDataDelegate, Sendable {
    let gate = RedirectGate()

    /// Installs a guard on `task`, made on `session` and not resumed yet, if its redirects
    /// wait for a delegate; returns its gate.
    static func install(on task: URLSessionTask, of session: URLSession) -> RedirectGate? {
      guard session.delegate is URLSessionTaskDelegate else { return nil }
      let redirectGuard = RedirectGuard()
      task.delegate = redirectGuard
      return redirectGuard.gate
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
      completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
      let gate = self.gate
      let decide: @Sendable (URLRequest?) -> Void = { decision in
        gate.answer { completionHandler(decision) }
      }
      guard let sessionDelegate = session.delegate as? URLSessionTaskDelegate else {
        return decide(request)
      }
      sessionDelegate.urlSession(
        session, task: task, willPerformHTTPRedirection: response, newRequest: request,
        completionHandler: decide)
    }
  }
#else
  /// On Apple platforms, a cancel never meets a redirect decision badly: no guard.
  enum RedirectGuard {
    static func install(on task: URLSessionTask, of session: URLSession) -> RedirectGate? {
      nil
    }
  }
#endif
