import AutoCancelTestSupport
import Dispatch
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite(
  "A loopback HTTP server whose client goes away",
  timeLimit(minutes: 1))
struct LoopbackHTTPServerClientGoneTests {
  /// One chunk, then a minute before the next: the record can only finish within the test's
  /// wait if the server watches the socket between chunks instead of waiting for its next write.
  private static let oneChunkThenAMinute = "/slow?size=10000000&chunk=1000&interval_ms=60000"

  @Test("notes a close between slow chunks without waiting for the next chunk")
  func aClientClosingBetweenSlowChunksIsNotedWithoutWaitingForTheNextChunk() async throws {
    try await withServer { server in
      let client = try RawClient(port: server.port)
      try client.get("\(Self.oneChunkThenAMinute)&id=gone-close")
      let head = try client.readHead()
      #expect(head.status == 200)
      #expect(head.headers["content-length"] == "10000000")
      _ = try client.readBody(1000)
      let closedAt = DispatchTime.now()
      client.close()

      let record = try #require(await server.waitForRecord(id: "gone-close", timeout: 20))
      if let noticed = record.clientWentAwayAt {
        // Reported, never asserted: speed belongs in the benchmark.
        let micros = (noticed.uptimeNanoseconds &- closedAt.uptimeNanoseconds) / 1000
        print("LoopbackHTTPServer noticed the close \(micros) µs after it")
      }
      #expect(record.clientWentAwayAt != nil)
      #expect(!record.completed)
      #expect(record.bytesPlanned == 10_000_000)
      #expect(record.bytesSent == 1000)
      #expect(record.finishedAt == record.clientWentAwayAt)
    }
  }

  @Test("notes a reset between slow chunks without waiting for the next chunk")
  func aClientResettingBetweenSlowChunksIsNotedWithoutWaitingForTheNextChunk() async throws {
    try await withServer { server in
      let client = try RawClient(port: server.port)
      try client.get("\(Self.oneChunkThenAMinute)&id=gone-reset")
      _ = try client.readHead()
      _ = try client.readBody(1000)
      client.reset()

      let record = try #require(await server.waitForRecord(id: "gone-reset", timeout: 20))
      #expect(record.clientWentAway)
      #expect(!record.completed)
      #expect(record.bytesSent == 1000)
    }
  }

  @Test("counts a half-close as gone")
  func aClientHalfClosingCountsAsGone() async throws {
    try await withServer { server in
      let client = try RawClient(port: server.port)
      try client.get("\(Self.oneChunkThenAMinute)&id=gone-half")
      _ = try client.readHead()
      _ = try client.readBody(1000)
      client.shutdownWrite()

      let record = try #require(await server.waitForRecord(id: "gone-half", timeout: 20))
      #expect(record.clientWentAway)
      #expect(record.bytesSent == 1000)
      #expect(try client.readsEndOfStream())
    }
  }

  @Test("stops a fast /slow transfer well short of its size")
  func aClientLeavingAFastSlowTransferStopsItWellShortOfTheSize() async throws {
    try await withServer { server in
      let client = try RawClient(port: server.port)
      try client.get("/slow?size=10000000&chunk=1000&interval_ms=2&id=gone-mid")
      _ = try client.readHead()
      _ = try client.readBody(5000)
      client.close()

      let record = try #require(await server.waitForRecord(id: "gone-mid", timeout: 20))
      #expect(record.clientWentAway)
      #expect(!record.completed)
      #expect(record.bytesSent >= 5000)
      #expect(record.bytesSent < 1_000_000)
    }
  }

  @Test("sends nothing, and notes it at once, when the client leaves during a /delay")
  func aClientLeavingDuringADelayGetsNoBytesAndIsNotedAtOnce() async throws {
    try await withServer { server in
      let client = try RawClient(port: server.port)
      try client.get("/delay?ms=60000&size=100&id=gone-delay")
      // Wait until the server is inside the delay, then leave.
      await server.expectRecord(id: "gone-delay") { $0.bytesPlanned == 100 }
      client.close()

      let record = try #require(await server.waitForRecord(id: "gone-delay", timeout: 20))
      #expect(record.clientWentAway)
      #expect(record.bytesSent == 0)
      #expect(!record.completed)
    }
  }

  @Test("notes a client that leaves mid-upload, with the bytes it sent")
  func aClientLeavingMidUploadIsNotedWithTheBytesItSent() async throws {
    try await withServer { server in
      let client = try RawClient(port: server.port)
      try client.send(
        "POST /upload?id=gone-upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
      try client.send([UInt8](repeating: 1, count: 1234))
      client.close()

      let record = try #require(await server.waitForRecord(id: "gone-upload", timeout: 20))
      #expect(record.clientWentAway)
      #expect(record.requestBodyBytes == 1234)
      #expect(!record.completed)
      #expect(record.bytesSent == 0)
    }
  }

  @Test("closes an idle kept-alive connection the client left, without touching any record")
  func aClientLeavingAnIdleKeepAliveConnectionClosesItWithoutTouchingRecords() async throws {
    try await withServer { server in
      let client = try RawClient(port: server.port)
      try client.get("/bytes?size=10&id=idle")
      _ = try client.readResponse()
      client.close()

      let stats = try #require(await server.waitForConnections { $0.open == 0 })
      #expect(stats.accepted == 1)
      #expect(stats.lastClosedAt != nil)
      let record = try #require(server.record(id: "idle"))
      #expect(record.completed && !record.clientWentAway)
    }
  }

  @Test("sees a URLSession task cancelled mid-transfer going away")
  func aURLSessionTaskCancelledMidTransferIsSeenGoingAway() async throws {
    try await withServer { server in
      let configuration = URLSessionConfiguration.ephemeral
      configuration.urlCache = nil  // FoundationNetworking can crash cancelling with a cache
      let session = URLSession(configuration: configuration)
      defer { session.invalidateAndCancel() }
      let task = session.dataTask(with: server.url("\(Self.oneChunkThenAMinute)&id=gone-session"))
      task.resume()
      let started = await server.waitForRecord(id: "gone-session") { $0.bytesSent >= 1000 }
      #expect(started != nil)
      task.cancel()

      let record = try #require(await server.waitForRecord(id: "gone-session", timeout: 20))
      #expect(record.clientWentAway)
      #expect(!record.completed)
      #expect(record.bytesSent == 1000)
    }
  }

  @Test("does not count requests pipelined during a slow response as going away")
  func requestsPipelinedDuringASlowResponseDoNotCountAsGoingAway() async throws {
    try await withServer { server in
      let client = try RawClient(port: server.port)
      try client.get("/slow?size=3000&chunk=1000&interval_ms=5&id=busy")
      _ = try client.readHead()
      // Sent while the server is between chunks: the socket turns readable with data, not EOF.
      try client.get("/bytes?size=3&id=next")
      _ = try client.readBody(3000)
      #expect(try client.readResponse().body.count == 3)
      let record = try #require(await server.waitForRecord(id: "busy"))
      #expect(record.completed && !record.clientWentAway)
    }
  }
}
