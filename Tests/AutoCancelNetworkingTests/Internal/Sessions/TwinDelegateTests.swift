#if canImport(FoundationNetworking)
  import AutoCancel
  import AutoCancelTestSupport
  import Foundation
  import FoundationNetworking
  import LoopbackHTTPServer
  import Testing

  @testable import AutoCancelNetworking

  /// A caller's session delegate that answers challenges with a credential, follows
  /// redirects, and records every call it receives, with the session it was given.
  final class RecordingDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate,
    Sendable
  {
    /// The calls, by name, each with whether it came with the caller's session.
    let calls = Protected<[String]>([])
    let session = Protected<ObjectIdentifier?>(nil)

    private func record(_ name: String, _ session: URLSession) {
      let fromCaller = self.session.current == ObjectIdentifier(session)
      calls.withLock { $0.append(fromCaller ? name : "\(name) (another session)") }
    }

    func names(_ name: String) -> Int { calls.current.filter { $0 == name }.count }

    /// Waits until the delegate has been told `name`, and checks that it was told nothing else.
    func expectToldOnly(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) async {
      await waitUntil("the delegate is told \(name)", sourceLocation: sourceLocation) {
        names(name) > 0
      }
      #expect(calls.current.allSatisfy { $0 == name }, sourceLocation: sourceLocation)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      didReceive challenge: URLAuthenticationChallenge,
      completionHandler:
        @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
      record("challenge", session)
      completionHandler(
        .useCredential, URLCredential(user: "user", password: "secret", persistence: .none))
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask,
      willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
      completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
      record("redirect", session)
      completionHandler(request)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
      totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
      record("didSendBodyData", session)
    }

    func urlSession(
      _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
      totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
      record("didWriteData", session)
    }

    func urlSession(
      _ session: URLSession, downloadTask: URLSessionDownloadTask,
      didFinishDownloadingTo location: URL
    ) {
      record("didFinishDownloadingTo", session)
    }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
      record("didReceiveResponse", session)
      completionHandler(.allow)
    }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data
    ) {
      record("didReceiveData", session)
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
    ) {
      record("didComplete", session)
    }
  }

  @Suite("The caller's delegate of a helper's twin task, on Linux", timeLimit(minutes: 1))
  struct TwinDelegateTests {
    /// Runs `body` with a server, and a session with an in-memory cache whose delegate records
    /// what it hears.
    func withRecordingSession(
      _ body: (LoopbackHTTPServer, URLSession, RecordingDelegate) async throws -> Void
    ) async throws {
      try await withServer { server in
        let delegate = RecordingDelegate()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = URLCache(
          memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        let session = URLSession(
          configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        delegate.session.withLock { $0 = ObjectIdentifier(session) }
        try await body(server, session, delegate)
      }
    }

    @Test("decides a helper's redirect, with the caller's session")
    func decidesRedirect() async throws {
      try await withRecordingSession { server, session, delegate in
        let url = server.url("/redirect?to=/bytes%3Fsize%3D64&id=redirected")
        let (data, response) = try await session.data(from: url, in: nil)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data.count == 64)
        #expect(delegate.calls.current == ["redirect"])
      }
    }

    @Test("decides a helper's challenge, with the caller's session")
    func decidesChallenge() async throws {
      try await withRecordingSession { server, session, delegate in
        let bag = CancelBag()
        let (data, response, error) = await completionOnNewThread { handler in
          session.dataTask(
            with: server.url("/auth?user=user&password=secret&size=64&id=challenged"), in: bag
          ) { handler($0, $1, $2) }.resume()
        }
        #expect(error == nil)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data?.count == 64)
        #expect(delegate.calls.current == ["challenge"])
      }
    }

    @Test(
      "hears nothing of a helper's response, data or completion, as with Foundation's completion handlers"
    )
    func hearsNoDataOfAHelper() async throws {
      try await withRecordingSession { server, session, delegate in
        let bag = CancelBag()
        let (data, _, error) = await completionOnNewThread { handler in
          session.dataTask(with: server.url("/bytes?size=100&id=quiet"), in: bag) {
            handler($0, $1, $2)
          }.resume()
        }
        #expect(error == nil)
        #expect(data?.count == 100)
        // Whatever the library forwarded has reached the delegate's queue, and run there.
        await libraryQueueDrained()
        await delegateQueueDrained(of: session)
        #expect(delegate.calls.current == [])
      }
    }

    @Test("tells an upload's progress to the caller's delegate")
    func uploadProgress() async throws {
      try await withRecordingSession { server, session, delegate in
        var request = URLRequest(url: server.url("/upload?id=progress"))
        request.httpMethod = "POST"
        let (reply, _) = try await session.upload(
          for: request, from: Data(count: 100_000), in: nil)
        #expect(String(decoding: reply, as: UTF8.self) == "100000")
        await delegate.expectToldOnly("didSendBodyData")
      }
    }

    @Test("tells a download's progress to the caller's delegate, and hands the file to the caller")
    func downloadProgress() async throws {
      try await withRecordingSession { server, session, delegate in
        let (file, _) = try await session.download(
          from: server.url("/bytes?size=100000&id=download"), in: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try Data(contentsOf: file).count == 100_000)
        await delegate.expectToldOnly("didWriteData")
      }
    }

    @Test("tells a stream's response head to the caller's delegate, not its body")
    func streamHead() async throws {
      try await withRecordingSession { server, session, delegate in
        let (body, _) = try await session.stream(
          for: URLRequest(url: server.url("/bytes?size=1000&id=streamed")), in: nil)
        var total = 0
        for try await chunk in body { total += chunk.count }
        #expect(total == 1000)
        await waitUntil("the head is told") { delegate.names("didReceiveResponse") == 1 }
        #expect(delegate.names("didReceiveData") == 0)
        #expect(delegate.names("didComplete") == 0)
      }
    }

    @Test("hands a helper the 401 as its answer when the session has no delegate to answer it")
    func unansweredChallenge() async throws {
      try await withServer { server in
        try await withEphemeralSession { session in
          let (data, response) = try await session.data(
            from: server.url("/auth?user=user&password=secret&size=64&id=unanswered"), in: nil)
          #expect((response as? HTTPURLResponse)?.statusCode == 401)
          #expect(!data.isEmpty)
        }
      }
    }
  }
#endif
