import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import Testing

@Suite("A loopback HTTP server asked to misbehave", timeLimit(minutes: 1))
struct LoopbackHTTPServerFaultTests {
  @Test("resets the connection after the body bytes it was told to send")
  func resetsAfterTheGivenBodyBytes() async throws {
    try await withClient { server, client in
      try await client.get("/bytes?size=100000&fault=reset&after=1000&id=reset")
      let head = try await client.readHead()
      #expect(head.status == 200)
      #expect(head.headers["content-length"] == "100000")
      #expect(head.headers["connection"] == "keep-alive")
      let end = try await client.readToEnd()
      #expect(end.ending == .reset)
      #expect(end.bytes <= 1000)

      let record = try await server.expectCutShort(
        id: "reset", after: 1000, faulted: true, clientWentAway: false)
      #expect(record.bytesPlanned == 100_000)
    }
  }

  @Test("closes the connection short of Content-Length after the body bytes it was told to send")
  func closesAfterTheGivenBodyBytes() async throws {
    try await withClient { server, client in
      try await client.get(
        "/slow?size=10000&chunk=500&interval_ms=1&fault=close&after=2000&id=close")
      #expect(try await client.readHead().status == 200)
      let end = try await client.readToEnd()
      #expect(end == (2000, .closed))

      try await server.expectCutShort(
        id: "close", after: 2000, faulted: true, clientWentAway: false)
    }
  }

  @Test("sends half the body before a fault when not told how much")
  func faultsHalfwayByDefault() async throws {
    try await withClient { server, client in
      try await client.get("/bytes?size=3000&fault=close&id=half")
      _ = try await client.readHead()
      #expect(try await client.readToEnd() == (1500, .closed))
      try await server.expectCutShort(id: "half", after: 1500, faulted: true, clientWentAway: false)
    }
  }

  @Test("stalls mid-body until the client leaves, and notes when it left")
  func stallsUntilTheClientLeaves() async throws {
    try await withClient { server, client in
      try await client.get(
        "/slow?size=100000&chunk=1000&interval_ms=1&fault=stall&after=3000&id=stall")
      _ = try await client.readHead()
      #expect(try await client.readBody(3000).count == 3000)
      let stalled = await server.expectRecord(id: "stall") { $0.faultStartedAt != nil }
      #expect(stalled?.bytesSent == 3000)
      #expect(stalled?.isFinished == false)
      client.shutdownWrite()

      try await server.expectCutShort(id: "stall", after: 3000, faulted: true, clientWentAway: true)
      #expect(try await client.readToEnd() == (0, .closed))
    }
  }

  @Test("ends a stall when it stops, without blaming the client")
  func stopEndsAStall() async throws {
    try await withClient { server, client in
      try await client.get("/bytes?size=5000&fault=stall&after=100&id=stopped")
      _ = try await client.readHead()
      _ = try await client.readBody(100)
      _ = try #require(await server.expectRecord(id: "stopped") { $0.faultStartedAt != nil })
      await server.stop()

      #expect(try await client.readToEnd() == (0, .closed))
      // Finished, or the wait, which returns at once on a stopped server, fails.
      try await server.expectCutShort(
        id: "stopped", after: 100, faulted: true, clientWentAway: false)
    }
  }

  @Test("reads the request and says nothing until the client leaves")
  func staysSilentUntilTheClientLeaves() async throws {
    try await withClient { server, client in
      try await client.get("/bytes?size=10&fault=silence&id=silence")
      let heard = try #require(
        await server.expectRecord(id: "silence") { $0.faultStartedAt != nil })
      #expect(!heard.isFinished)
      client.shutdownWrite()

      let record = try await server.expectCutShort(
        id: "silence", after: 0, faulted: true, clientWentAway: true)
      #expect(record.status == 0)
      // Everything the server sent before it noticed the client leaving: nothing at all.
      #expect(try await client.readToEnd() == (0, .closed))
    }
  }

  @Test("reads the request and closes the connection without answering")
  func hangsUpWithoutAnswering() async throws {
    try await withClient { server, client in
      try await client.get("/bytes?size=10&fault=hangup&id=hangup")
      #expect(try await client.readToEnd() == (0, .closed))

      let record = try await server.expectCutShort(
        id: "hangup", after: 0, faulted: true, clientWentAway: false)
      #expect(record.status == 0)
    }
  }

  @Test("frames a body in chunks, then sends a chunk size that is not hexadecimal")
  func breaksItsChunkedFraming() async throws {
    try await withClient { server, client in
      try await client.get("/bytes?size=100&fault=badchunk&after=40&id=badchunk")
      let head = try await client.readHead()
      #expect(head.headers["transfer-encoding"] == "chunked")
      #expect(head.headers["content-length"] == nil)
      #expect(try await client.readLine() == "28")
      #expect(try await client.readBody(40).count == 40)
      #expect(try await client.readLine() == "")
      #expect(try await client.readLine() == "zz")
      client.shutdownWrite()

      #expect(try await client.readToEnd() == (0, .closed))
      try await server.expectCutShort(
        id: "badchunk", after: 40, faulted: true, clientWentAway: true)
    }
  }

  @Test("sends a body in chunked framing, its length unannounced, when asked to")
  func sendsChunkedWhenAsked() async throws {
    try await withClient { server, client in
      try await client.get("/slow?size=30&chunk=20&interval_ms=1&chunked=1&id=chunked")
      let head = try await client.readHead()
      #expect(head.headers["transfer-encoding"] == "chunked")
      #expect(head.headers["content-length"] == nil)
      #expect(try await client.readLine() == "14")
      #expect(try await client.readBody(20).count == 20)
      #expect(try await client.readLine() == "")
      #expect(try await client.readLine() == "a")
      #expect(try await client.readBody(10).count == 10)
      #expect(try await client.readLine() == "")
      #expect(try await client.readLine() == "0")
      #expect(try await client.readLine() == "")
      let record = try #require(await server.expectRecord(id: "chunked"))
      #expect(record.completed)
      #expect(record.bytesSent == 30)
    }
  }

  @Test(
    "rejects an unknown fault, an amount past the body, and close or chunked other than 0 or 1",
    arguments: [
      "fault=explode", "fault=close&after=11", "fault=reset&after=-1", "close=yes", "chunked=2",
    ])
  func rejectsInvalidOptions(options: String) async throws {
    try await withClient { server, client in
      let response = try await client.response(to: "/bytes?size=10&\(options)")
      #expect(response.status == 400)
    }
  }

  @Test("closes the connection itself after the response when asked to, announcing it")
  func closesAfterTheResponseWhenAsked() async throws {
    try await withClient { server, client in
      let response = try await client.response(
        to: "/slow?size=3000&chunk=1000&interval_ms=1&close=1&id=server-close")
      #expect(response.body.count == 3000)
      #expect(response.headers["connection"] == "close")
      #expect(try await client.readToEnd() == (0, .closed))
      let record = try #require(await server.expectRecord(id: "server-close"))
      #expect(record.completed)
      #expect(record.faultStartedAt == nil)
      let stats = await server.expectConnections("the connection closed") { $0.open == 0 }
      #expect(stats?.accepted == 1)
    }
  }

  @Test("redirects once to the path it is given, with the status it is given")
  func redirectsOnce() async throws {
    try await withClient { server, client in
      let redirect = try await client.response(
        to: "/redirect?to=/bytes%3Fsize%3D5%26id%3Dtarget&id=hop")
      #expect(redirect.status == 302)
      #expect(redirect.headers["location"] == "/bytes?size=5&id=target")
      #expect(
        try await client.response(to: try #require(redirect.headers["location"])).body.count == 5)
      #expect(try await client.response(to: "/redirect?to=/bytes&code=307").status == 307)
      #expect(try await client.response(to: "/redirect?to=elsewhere").status == 400)
      #expect(try #require(await server.expectRecord(id: "hop")).status == 302)
    }
  }

  @Test("redirects /loop to itself, request after request")
  func loopsForEver() async throws {
    try await withClient { server, client in
      var target = "/loop?id=loop"
      for _ in 0..<3 {
        let response = try await client.response(to: target)
        #expect(response.status == 302)
        target = try #require(response.headers["location"])
        #expect(target == "/loop?id=loop")
      }
      let records = server.records.filter { $0.id == "loop" }
      #expect(records.count == 3)
      #expect(Set(records.map(\.connection)).count == 1)
    }
  }

  @Test("challenges a request without the expected credentials, and serves one with them")
  func challengesUnlessAuthorized() async throws {
    try await withClient { server, client in
      let target = "/auth?user=ann&password=secret&realm=vault&size=7"
      let challenge = try await client.response(to: target)
      #expect(challenge.status == 401)
      #expect(challenge.headers["www-authenticate"] == "Basic realm=\"vault\"")
      let wrong = Data("ann:guess".utf8).base64EncodedString()
      #expect(
        try await client.response(to: target, headers: ["Authorization: Basic \(wrong)"]).status
          == 401)
      let right = Data("ann:secret".utf8).base64EncodedString()
      let served = try await client.response(to: target, headers: ["Authorization: Basic \(right)"])
      #expect(served.status == 200)
      #expect(served.body.count == 7)
    }
  }

  @Test("reserves a closed port that refuses connections while it runs")
  func reservesARefusingPort() async throws {
    try await withServer { server in
      #expect(server.closedPort != 0)
      #expect(server.closedPort != server.port)
      #expect(server.closedPortURL("/bytes").port == server.closedPort)
      // Not the error `#expect(throws:)` returns: Swift Testing 6.0 returns none.
      do {
        _ = try await RawClient(port: server.closedPort)
        Issue.record("connected to the closed port \(server.closedPort)")
      } catch let error as RawClient.Failure {
        #expect(error.description == "connect: errno \(ECONNREFUSED)")
      }
    }
  }
}
