import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import SeededRandom
import Testing

@Suite(
  "A loopback HTTP server, started and stopped",
  timeLimit(minutes: 1))
struct LoopbackHTTPServerLifecycleTests {
  @Test("serves 300 concurrent connections and closes them all")
  func threeHundredConcurrentConnectionsAreServedAndAllClosed() async throws {
    try await withServer { server in
      let seed = TestSeed.fresh()
      print("LoopbackHTTPServer concurrency: \(TestSeed.describe(seed))")
      var generator = SeededGenerator(seed: seed)
      let count = 300

      var clients: [RawClient] = []
      var sizes: [Int] = []
      for index in 0..<count {
        let client = try await RawClient(port: server.port)
        let size = Int.random(in: 0...20_000, using: &generator)
        if Bool.random(using: &generator) {
          try await client.get("/bytes?size=\(size)&id=many-\(index)")
        } else {
          try await client.get("/slow?size=\(size)&chunk=4000&interval_ms=1&id=many-\(index)")
        }
        clients.append(client)
        sizes.append(size)
      }
      let allOpen = await server.expectConnections("all \(count) open") { $0.open == count }
      #expect(allOpen?.accepted == count, "\(TestSeed.describe(seed))")

      for (client, size) in zip(clients, sizes) {
        #expect(try await client.readResponse().body.count == size, "\(TestSeed.describe(seed))")
      }
      for (index, size) in sizes.enumerated() {
        let record = try #require(await server.expectRecord(id: "many-\(index)"))
        #expect(record.completed && record.bytesSent == size, "\(TestSeed.describe(seed))")
      }
      for client in clients { client.close() }
      let closed = await server.expectConnections("every connection closed") { $0.open == 0 }
      #expect(closed?.accepted == count)
    }
  }

  @Test("closes its listener and every connection on stop, ending requests in flight")
  func stopClosesTheListenerAndEveryConnectionAndEndsInFlightRequests() async throws {
    try await withServer { server in
      let port = server.port
      let busy = try await RawClient(port: port)
      try await busy.get("/slow?size=10000000&chunk=1000&interval_ms=60000&id=cut-short")
      _ = try await busy.readHead()
      let idle = try await RawClient(port: port)
      try await idle.get("/bytes?size=1")
      _ = try await idle.readResponse()
      _ = try #require(await server.expectConnections("both open") { $0.open == 2 })

      // Where /proc exists, count the process's sockets bound locally to the server's port:
      // the listener and both accepted connections now, none after stop().
      if let before = descriptorsBound(toPort: port) {
        #expect(before == 3)
      }
      await server.stop()
      if let after = descriptorsBound(toPort: port) {
        #expect(after == 0)
      }
      #expect(server.connections.open == 0)
      let record = try #require(server.record(id: "cut-short"))
      #expect(record.isFinished)
      #expect(!record.completed)
      #expect(!record.clientWentAway)
      #expect(try await busy.readsEndOfStream())
      #expect(try await idle.readsEndOfStream())
      await #expect(throws: RawClient.Failure.self) { try await RawClient(port: port) }
    }
  }

  @Test(
    "stops idempotently from many tasks and threads at once, each returning once it has stopped"
  )
  func stopIsIdempotentAndSafeFromManyTasksAtOnce() async throws {
    try await withClient { server, client in
      _ = try await client.response(to: "/bytes?size=1")
      // Both forms at once: tasks await the async stop, threads block in the synchronous one.
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<4 {
          group.addTask {
            await server.stop()
            #expect(server.connections.open == 0)
          }
        }
        group.addTask {
          await onThreads(4) { _ in
            server.stop()
            #expect(server.connections.open == 0)
          }
        }
      }
      await server.stop()
      #expect(server.connections.open == 0)
      #expect(throws: LoopbackHTTPServerError.self) { try server.start() }
    }
  }

  @Test("starts on an ephemeral port, and ignores a start while running")
  func startIsANoOpWhileRunningAndGivesAnEphemeralPort() async throws {
    try await withServer { server in
      let port = server.port
      #expect(port > 0)
      try server.start()
      #expect(server.port == port)
      #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(port)")
      #expect(
        server.url("/bytes?size=1").absoluteString == "http://127.0.0.1:\(port)/bytes?size=1")
    }
  }

  @Test("raises the process's soft limit of open descriptors to the hard limit when it starts")
  func raisesOpenFilesLimit() async throws {
    try await withServer { server in
      var limit = rlimit()
      #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
      #else
        let resource = RLIMIT_NOFILE
      #endif
      try #require(getrlimit(resource, &limit) == 0)
      #if canImport(Darwin)
        #expect(limit.rlim_cur >= min(limit.rlim_max, rlim_t(OPEN_MAX)))
      #else
        #expect(limit.rlim_cur == limit.rlim_max)
      #endif
    }
  }

  @Test("stops when it is dropped")
  func droppingTheServerStopsIt() async throws {
    // The box holds the only reference, so that the server goes where the box lets it go.
    let only = Protected<LoopbackHTTPServer?>(LoopbackHTTPServer())
    let port = try only.withLock { server in
      try server?.start()
      return server?.port ?? 0
    }
    let client = try await RawClient(port: port)
    _ = try await client.response(to: "/bytes?size=1")
    // Its deinit stops it, blocking until the server's threads end: on a thread of its own.
    await onNewThread { only.withLock { $0 = nil } }
    #expect(try await client.readsEndOfStream())
    await #expect(throws: RawClient.Failure.self) { try await RawClient(port: port) }
    if let after = descriptorsBound(toPort: port) {
      #expect(after == 0)
    }
  }

  @Test("stops harmlessly when it never started")
  func stoppingANeverStartedServerIsHarmless() {
    let server = LoopbackHTTPServer()
    #expect(server.port == 0)
    server.stop()
    server.stop()
    #expect(server.port == 0)
    #expect(server.records.isEmpty)
  }

  @Test("gives up a wait after its timeout, and after stop")
  func waitingGivesUpAfterTheTimeoutAndAfterStop() async throws {
    try await withServer { server in
      #expect(await server.waitForRecord(id: "never", timeout: 0.05) == nil)

      let client = try await RawClient(port: server.port)
      _ = try await client.response(to: "/bytes?size=1&id=done")
      let pending = Task { await server.waitForRecord(id: "done", timeout: 30) { _ in false } }
      await server.expectRecord(id: "done")
      await server.stop()
      #expect(await pending.value == nil)
      // After stop the waits answer at once from the final state.
      #expect(await server.waitForRecord(id: "done")?.completed == true)
      #expect(await server.waitForConnections(timeout: 30) { $0.open == 1 } == nil)
    }
  }

  @Test("does not deadlock when a wait's predicate stops it")
  func stopFromInsideAWaitPredicateDoesNotDeadlock() async throws {
    try await withClient { server, client in
      try await client.get("/slow?size=100000&chunk=1000&interval_ms=60000&id=stop-inside")
      let record = await server.waitForRecord(id: "stop-inside") { record in
        guard record.bytesSent > 0 else { return false }
        server.stop()  // runs on the connection thread that is sending this response
        return true
      }
      #expect(record != nil)
      #expect(try await client.readsEndOfStream())
      let stats = await server.expectConnections("the connection closed") { $0.open == 0 }
      #expect(stats?.accepted == 1)
    }
  }

  @Test("returns nil from a wait that is cancelled")
  func cancellingAWaitReturnsNil() async throws {
    try await withServer { server in
      // An hour, far past the time limit: only the cancellation can end this wait in time.
      let waiting = Task { await server.waitForRecord(id: "never", timeout: 3_600) }
      waiting.cancel()
      #expect(await waiting.value == nil)
    }
  }
}
