import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A caller's session delegate that answers authentication challenges with a credential (or
/// refuses them), and follows or refuses redirects, recording which session asked.
final class DecidingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
  let credential: URLCredential?
  let followsRedirects: Bool
  /// The sessions that asked, in order.
  let askedBy = Protected<[ObjectIdentifier]>([])

  init(credential: URLCredential?, followsRedirects: Bool = true) {
    self.credential = credential
    self.followsRedirects = followsRedirects
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
    completionHandler:
      @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    askedBy.withLock { $0.append(ObjectIdentifier(session)) }
    if let credential {
      completionHandler(.useCredential, credential)
    } else {
      completionHandler(.cancelAuthenticationChallenge, nil)
    }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
    completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    askedBy.withLock { $0.append(ObjectIdentifier(session)) }
    completionHandler(followsRedirects ? request : nil)
  }
}

@Suite("Requests on a session whose delegate decides", timeLimit(minutes: 1))
struct SessionDelegateTests {

  /// `/auth`, answered with 64 bytes once the request carries `user:secret`.
  func authURL(on server: LoopbackHTTPServer) -> URL {
    server.url("/auth?user=user&password=secret&size=64")
  }

  @Test("stream past an authentication challenge the session's delegate answers")
  func streamChallengeAnswered() async throws {
    try await withServer { server in
      let delegate = DecidingDelegate(
        credential: URLCredential(user: "user", password: "secret", persistence: .none))
      try await withEphemeralSession(delegate: delegate) { session in
        let (body, response) = try await session.stream(
          for: URLRequest(url: authURL(on: server)), in: nil)
        var total = 0
        for try await chunk in body { total += chunk.count }
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(total == 64)
        #expect(delegate.askedBy.current == [ObjectIdentifier(session)])
      }
    }
  }

  @Test("stream no further when the session's delegate refuses the challenge")
  func streamChallengeRefused() async throws {
    try await withServer { server in
      let delegate = DecidingDelegate(credential: nil)
      await withEphemeralSession(delegate: delegate) { session in
        let bag = CancelBag()
        await #expect {
          let (body, _) = try await session.stream(
            for: URLRequest(url: authURL(on: server)), in: bag)
          for try await _ in body {}
        } throws: { !($0 is CancellationError) }
        #expect(delegate.askedBy.current == [ObjectIdentifier(session)])
        #expect(bag.count == 0)
      }
    }
  }

  @Test("stream a 401 as the answer when the session has no delegate to answer its challenge")
  func streamChallengeUnanswered() async throws {
    try await withServer { server in
      try await withEphemeralSession { session in
        let bag = CancelBag()
        let (body, response) = try await session.stream(
          for: URLRequest(url: authURL(on: server)), in: bag)
        var total = 0
        for try await chunk in body { total += chunk.count }
        #expect((response as? HTTPURLResponse)?.statusCode == 401)
        #expect(total > 0)
        #expect(bag.count == 0)
      }
    }
  }

  @Test("stream the redirect itself when the session's delegate refuses to follow it")
  func streamRedirectRefused() async throws {
    try await withServer { server in
      let delegate = DecidingDelegate(credential: nil, followsRedirects: false)
      try await withEphemeralSession(delegate: delegate) { session in
        let url = server.url("/redirect?to=/bytes%3Fsize%3D10&id=refused")
        let (body, response) = try await session.stream(for: URLRequest(url: url), in: nil)
        for try await _ in body {}
        #expect((response as? HTTPURLResponse)?.statusCode == 302)
        #expect(delegate.askedBy.current == [ObjectIdentifier(session)])
      }
    }
  }

  @Test("hand a helper's task the redirect itself when the session's delegate refuses it")
  func dataTaskRedirectRefused() async throws {
    try await withServer { server in
      let delegate = DecidingDelegate(credential: nil, followsRedirects: false)
      await withEphemeralSession(delegate: delegate) { session in
        let bag = CancelBag()
        let url = server.url("/redirect?to=/bytes%3Fsize%3D10&id=refused-task")
        let (_, response, error) = await completionOnNewThread { handler in
          session.dataTask(with: url, in: bag, completionHandler: handler).resume()
        }
        #expect(error == nil)
        #expect((response as? HTTPURLResponse)?.statusCode == 302)
        #expect(delegate.askedBy.current == [ObjectIdentifier(session)])
      }
    }
  }
}
