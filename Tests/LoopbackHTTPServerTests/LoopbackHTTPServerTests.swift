import Foundation
import LoopbackHTTPServer
import AutoCancelTestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite(
  "A loopback HTTP server", timeLimit(minutes: 1))
struct LoopbackHTTPServerTests {
  @Test("returns exactly the size /bytes asks for, and records the request as completed")
  func bytesReturnsExactlyTheRequestedSizeAndRecordsItAsCompleted() async throws {
    try await withClient { server, client in
      let response = try await client.response(to: "/bytes?size=200000&id=bytes-1")
      #expect(response.status == 200)
      #expect(response.body.count == 200_000)
      #expect(response.headers["x-request-id"] == "bytes-1")

      let record = try #require(await server.expectRecord(id: "bytes-1"))
      #expect(record.completed)
      #expect(record.bytesPlanned == 200_000)
      #expect(record.bytesSent == 200_000)
      #expect(record.clientWentAwayAt == nil)
      #expect(record.method == "GET")
      #expect(record.path == "/bytes")
      #expect(record.query["size"] == "200000")
      #expect(record.status == 200)
    }
  }

  @Test("streams the whole /slow body in chunks while the client stays")
  func slowStreamsTheWholeBodyInChunksWhenTheClientStays() async throws {
    try await withClient { server, client in
      let response = try await client.response(
        to: "/slow?size=5000&chunk=1000&interval_ms=1&id=slow-1")
      #expect(response.status == 200)
      #expect(response.headers["content-length"] == "5000")
      #expect(response.body.count == 5000)

      let record = try #require(await server.expectRecord(id: "slow-1"))
      #expect(record.completed)
      #expect(record.bytesSent == 5000)
    }
  }

  @Test("paces /slow by a rate instead of an interval when given one")
  func slowAcceptsARateInsteadOfAnInterval() async throws {
    try await withClient { server, client in
      let response = try await client.response(to: "/slow?size=3000&rate=1000000&id=rate-1")
      #expect(response.body.count == 3000)
      let record = try #require(await server.expectRecord(id: "rate-1"))
      #expect(record.completed && record.bytesSent == 3000)
    }
  }

  @Test("sends the /delay body after the delay")
  func delaySendsTheBodyAfterTheDelay() async throws {
    try await withClient { server, client in
      let response = try await client.response(to: "/delay?ms=20&size=10&id=delay-1")
      #expect(response.status == 200)
      #expect(response.body.count == 10)
      let record = try #require(await server.expectRecord(id: "delay-1"))
      #expect(record.completed && record.bytesSent == 10)
    }
  }

  @Test(
    "replies to /status with the requested code",
    arguments: [200, 201, 204, 304, 404, 418, 500, 503])
  func statusRepliesWithTheRequestedCode(code: Int) async throws {
    try await withClient { server, client in
      let response = try await client.response(to: "/status?code=\(code)&id=status-\(code)")
      #expect(response.status == code)
      let record = try #require(await server.expectRecord(id: "status-\(code)"))
      #expect(record.status == code)
      #expect(record.completed)
    }
  }

  @Test("counts the body of an upload", arguments: ["POST", "PUT"])
  func uploadCountsTheRequestBody(method: String) async throws {
    try await withClient { server, client in
      try await client.upload("/upload?id=up-\(method)", method: method, length: 300_000)
      let response = try await client.readResponse()
      #expect(response.status == 200)
      #expect(response.text == "300000")
      let record = try #require(await server.expectRecord(id: "up-\(method)"))
      #expect(record.requestBodyBytes == 300_000)
      #expect(record.method == method)
      #expect(record.completed)
    }
  }

  @Test("holds an upload after the bytes asked for until released, and then reads the rest")
  func heldUploadWaitsForItsRelease() async throws {
    try await withClient { server, client in
      try await client.upload("/upload?id=held&hold=10000", length: 40_000)
      // The whole body is sent; the server reads up to the hold, and no further.
      let held = await server.expectRecord(id: "held") { $0.requestBodyBytes >= 10_000 }
      #expect(held?.requestBodyBytes == 10_000)
      #expect(server.record(id: "held")?.requestBodyBytes == 10_000)
      server.releaseUpload(id: "held")
      #expect(try await client.readResponse().text == "40000")
    }
  }

  @Test("reads a paced upload a chunk at a time, pausing between chunks")
  func pacedUploadIsReadInChunks() async throws {
    try await withClient { server, client in
      // The whole body is sent at once; the server reads one chunk, then pauses a minute: the
      // client leaves during the pause, with the rest of its body still unread.
      try await client.upload("/upload?id=paced&chunk=10000&interval_ms=60000", length: 40_000)
      await server.expectRecord(id: "paced") { $0.requestBodyBytes > 0 }
      client.close()
      let record = try #require(await server.expectRecord(id: "paced"))
      #expect(record.requestBodyBytes > 0 && record.requestBodyBytes <= 10_000)
      #expect(record.clientWentAway)
      // Paced to a millisecond, the whole body is read, and answered.
      let quick = try await RawClient(port: server.port)
      try await quick.upload("/upload?id=quick&chunk=10000&interval_ms=1", length: 40_000)
      #expect(try await quick.readResponse().text == "40000")
    }
  }

  @Test("sees a client that left a held upload once the upload is released")
  func heldUploadSeesTheClientLeaveOnRelease() async throws {
    try await withClient { server, client in
      try await client.upload(
        "/upload?id=held-gone&hold=10000", length: 1_000_000, sending: 30_000)
      await server.expectRecord(id: "held-gone") { $0.requestBodyBytes >= 10_000 }
      client.close()
      server.releaseUpload(id: "held-gone")
      let record = await server.expectRecord(id: "held-gone") { $0.isFinished }
      #expect(record?.clientWentAway == true)
      #expect(record?.requestBodyBytes == 30_000)
    }
  }

  @Test("answers Expect: 100-continue before reading an upload's body")
  func uploadAnswersExpectContinueBeforeReadingTheBody() async throws {
    try await withClient { server, client in
      try await client.upload(
        "/upload?id=expect", length: 5, sending: 0, headers: ["Expect: 100-continue"])
      // The server must answer 100 before we send the body, or this read would block.
      let (interim, _) = try await client.readHeadIncludingInterim()
      #expect(interim == 100)
      try await client.send("hello")
      #expect(try await client.readResponse().text == "5")
    }
  }

  @Test("decodes a chunked upload body")
  func uploadDecodesAChunkedBody() async throws {
    try await withClient { server, client in
      try await client.send(
        "POST /upload?id=chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "5\r\nhello\r\nA;ext=1\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n")
      let response = try await client.readResponse()
      #expect(response.text == "15")
      let record = try #require(await server.expectRecord(id: "chunked"))
      #expect(record.requestBodyBytes == 15)
    }
  }

  @Test("answers unknown paths with 404 and keeps the connection usable")
  func unknownPathsGet404AndTheConnectionStaysUsable() async throws {
    try await withClient { server, client in
      #expect(try await client.response(to: "/nowhere?id=missing").status == 404)
      #expect(try await client.response(to: "/bytes?size=3").body.count == 3)
      let record = try #require(await server.expectRecord(id: "missing"))
      #expect(record.status == 404)
    }
  }

  @Test("rejects invalid parameters and wrong methods")
  func invalidParametersAndWrongMethodsAreRejected() async throws {
    try await withClient { server, client in
      #expect(try await client.response(to: "/bytes?size=lots").status == 400)
      let response = try await client.response(to: "/upload")
      #expect(response.status == 405)
      #expect(response.headers["allow"] == "POST, PUT")
      try await client.upload("/upload?hold=-1", length: 1)
      #expect(try await client.readResponse().status == 400)
      try await client.upload("/upload?chunk=0", length: 1)
      #expect(try await client.readResponse().status == 400)
    }
  }

  @Test("names the record after the request-ID header when no id parameter is given")
  func theRequestIDHeaderNamesTheRecordWhenNoIDParameterIsGiven() async throws {
    try await withClient { server, client in
      _ = try await client.response(to: "/bytes?size=1", headers: ["X-Request-ID: header-id"])
      let record = try #require(await server.expectRecord(id: "header-id"))
      #expect(record.bytesSent == 1)
    }
  }

  @Test("serves several requests on one kept-alive connection")
  func keepAliveServesSeveralRequestsOnOneConnection() async throws {
    try await withClient { server, client in
      for index in 0..<3 {
        #expect(try await client.response(to: "/bytes?size=100&id=ka-\(index)").body.count == 100)
      }
      var connections: Set<Int> = []
      for index in 0..<3 {
        let record = try #require(await server.expectRecord(id: "ka-\(index)"))
        connections.insert(record.connection)
      }
      #expect(connections.count == 1)
      #expect(server.connections.accepted == 1)
      #expect(server.connections.open == 1)
    }
  }

  @Test("answers pipelined requests in order")
  func pipelinedRequestsAreAnsweredInOrder()
    async throws
  {
    try await withClient { server, client in
      try await client.send(
        "GET /slow?size=300&chunk=100&interval_ms=1&id=p1 HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /bytes?size=7&id=p2 HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(try await client.readResponse().body.count == 300)
      #expect(try await client.readResponse().body.count == 7)
      let first = try #require(await server.expectRecord(id: "p1"))
      #expect(first.completed && first.clientWentAwayAt == nil)
    }
  }

  @Test("closes the connection when a request asks for Connection: close")
  func connectionCloseIsHonoured() async throws {
    try await withClient { server, client in
      let response = try await client.response(
        to: "/bytes?size=10&id=close-1", headers: ["Connection: close"])
      #expect(response.headers["connection"] == "close")
      #expect(try await client.readsEndOfStream())
      let stats = await server.expectConnections("the connection closed") {
        $0.open == 0 && $0.lastClosedAt != nil
      }
      #expect(stats?.accepted == 1)
    }
  }

  @Test("answers malformed requests with 400 and keeps serving")
  func malformedRequestsGet400AndTheServerKeepsServing() async throws {
    try await withServer { server in
      let bad = try await RawClient(port: server.port)
      try await bad.send("NONSENSE\r\n\r\n")
      #expect(try await bad.readResponse().status == 400)
      #expect(try await bad.readsEndOfStream())

      let good = try await RawClient(port: server.port)
      try await good.get("/bytes?size=5")
      #expect(try await good.readResponse().body.count == 5)
    }
  }

  @Test("serves a URLSession download")
  func urlSessionDownloadsFromIt() async throws {
    try await withServer { server in
      let configuration = URLSessionConfiguration.ephemeral
      configuration.urlCache = nil
      let session = URLSession(configuration: configuration)
      let url = server.url("/bytes?size=12345&id=us-1")
      let outcome = Protected<(data: Data?, status: Int?)>((nil, nil))
      let completed = Gate()
      // Making and resuming a task wait on FoundationNetworking's queue: off the cooperative pool.
      await onNewThread {
        session.dataTask(with: url) { data, response, _ in
          outcome.withLock { $0 = (data, (response as? HTTPURLResponse)?.statusCode) }
          completed.open()
        }.resume()
      }
      await completed.wait("the download completes")
      await onNewThread { session.finishTasksAndInvalidate() }
      #expect(outcome.current.status == 200)
      #expect(outcome.current.data?.count == 12345)
      let record = try #require(await server.expectRecord(id: "us-1"))
      #expect(record.completed && record.bytesSent == 12345)
    }
  }
}
