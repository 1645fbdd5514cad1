#if canImport(FoundationNetworking)
  import AutoCancel
  import AutoCancelTestSupport
  import Foundation
  import FoundationNetworking
  import LoopbackHTTPServer
  import Testing

  @testable import AutoCancelNetworking

  /// Streams `count` small bodies on `session`, each read to its end.
  func streamBodies(
    _ count: Int, on session: URLSession, from server: LoopbackHTTPServer
  )
    async throws
  {
    for index in 0..<count {
      let url = server.url("/bytes?size=1000&id=twin-\(index)")
      let (body, _) = try await session.stream(for: URLRequest(url: url), in: nil)
      for try await _ in body {}
    }
  }

  @Suite("A twin session", timeLimit(minutes: 1))
  struct TwinSessionsTests {
    @Test("is freed, and its connections closed, soon after the caller's session is gone")
    func endsWithItsSession() async throws {
      let server = TestServer()
      try server.start()
      var session: URLSession? = URLSession(configuration: .ephemeral)
      try await streamBodies(6, on: session!, from: server)
      let twin = WeakSession(TaskQueue.sync { TwinSessions.shared.twin(for: session!).session })
      #expect(await server.expectConnections("a connection is open") { $0.open > 0 } != nil)
      session!.finishTasksAndInvalidate()
      session = nil
      await waitUntil("the twin is freed") { twin.session == nil }
      await server.expectConnections("the twin's connections closed") { $0.open == 0 }
    }

    // An exit test (Swift Testing 6.2).
    #if compiler(>=6.2)
      @Test("lets a request end that was cancelled before its task was made, its session gone")
      func sessionGoneBeforeTheTaskIsMade() async {
        // In a process of its own: it holds the process's queues of URLSession calls, and the
        // failure it guards against stops the process.
        let errors = ChildStandardError("twin-session-gone")
        let result = await offThePool {
          await #expect(processExitsWith: .success) {
            closeInheritedSockets()
            ChildStandardError("twin-session-gone").sendToParent()
            let url = URL(string: "http://127.0.0.1:9/never-made")!
            for lane in TaskQueue.lanes { lane.suspend() }  // the request waits to be made
            var session: URLSession? = URLSession(configuration: .ephemeral)
            let request = Task { [session] in _ = try await session!.data(from: url, in: nil) }
            await waitUntil("the request waits for its task") {
              TaskQueue.sync { TwinSessions.shared.hasTwins }
            }
            let twin = TaskQueue.sync { TwinSessions.shared.twin(for: session!).session }
            request.cancel()  // the call returns at once; its task is still to be made
            _ = await request.result
            session = nil
            // The reaper's visit, now: a twin whose caller's session is gone is invalidated,
            // which FoundationNetworking records on its work queue, before it runs this.
            _ = TaskQueue.sync { TwinSessions.shared.invalidateOrphans() }
            await withCheckedContinuation { done in twin.getAllTasks { _ in done.resume() } }
            for lane in TaskQueue.lanes { lane.resume() }
            await libraryQueueDrained()  // the task made, and handed back to the transfer
          }
        }
        errors.recordIfFailed(result)
      }

      @Test("leaves at most a few descriptors behind after three rounds of sessions, each gone")
      func descriptorsStayBounded() async {
        // In a process of its own, so that no other test's sockets are counted.
        let errors = ChildStandardError("twin-descriptors")
        let result = await offThePool {
          await #expect(processExitsWith: .success) {
            closeInheritedSockets()
            ChildStandardError("twin-descriptors").sendToParent()
            let server = LoopbackHTTPServer()
            try server.start()
            let start = try openFileDescriptorCount()
            for _ in 0..<3 {
              let session = URLSession(configuration: .ephemeral)
              try await streamBodies(6, on: session, from: server)
              session.finishTasksAndInvalidate()
            }
            let bounded = await waitUntil("the descriptors fall back") {
              (try? openFileDescriptorCount()).map { $0 <= start + 7 } ?? false
            }
            guard bounded else { exit(1) }
          }
        }
        errors.recordIfFailed(result)
      }
    #endif
  }
#endif
