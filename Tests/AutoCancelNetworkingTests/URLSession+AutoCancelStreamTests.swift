import AutoCancelTestSupport
import AutoCancel
import AutoCancelNetworking
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Streamed URLSession bodies bound to a bag", timeLimit(minutes: 1))
struct URLSessionAutoCancelStreamTests {

  @Test("deliver the whole body in chunks, then leave the bag")
  func wholeBody() async throws {
    try await withServerAndBag { server, bag in
      let (body, response) = try await makeCachingSession().stream(
        for: URLRequest(url: server.url("/slow?size=100000&chunk=10000&interval_ms=1")), in: bag)
      #expect((response as? HTTPURLResponse)?.statusCode == 200)
      var total = 0
      for try await chunk in body { total += chunk.count }
      #expect(total == 100_000)
      #expect(bag.count == 0)
    }
  }

  @Test(
    "throw CancellationError mid-stream when the bag ends, and the server sees the client leave")
  func bagEndsMidStream() async throws {
    try await withServerAndBag { server, bag in
      let body = try await server.streamLongBody(id: "stream-bag", in: bag)
      var received = 0
      await #expect(throws: CancellationError.self) {
        for try await chunk in body {
          received += chunk.count
          if received >= 65_536 { bag.end(reason: .custom("closed")) }
        }
      }
      await server.expectRecord(id: "stream-bag") { $0.clientWentAway }
      #expect(bag.count == 0)
    }
  }

  @Test("stop the transfer when the consumer stops iterating")
  func consumerStops() async throws {
    try await withServerAndBag { server, bag in
      let body = try await server.streamLongBody(id: "stream-leave", in: bag)
      let (reading, started) = AsyncStream<Void>.makeStream()
      let reader = Task {
        for try await _ in body { started.yield() }
      }
      // Cancel a consumer that is iterating (a task that never started iterating has no
      // iterator for its cancellation to reach): wait for its first chunk.
      for await _ in reading { break }
      reader.cancel()
      _ = await reader.result
      await server.expectRecord(id: "stream-leave") { $0.clientWentAway }
      #expect(bag.count == 0)
    }
  }

  @Test("throw CancellationError at once when the bag already ended")
  func endedBag() async throws {
    try await withServerAndBag { server, bag in
      bag.end(reason: .timedOut)
      await #expect(throws: CancellationError.self) {
        _ = try await URLSession.shared.stream(
          for: URLRequest(url: server.url("/bytes?size=1")), in: bag)
      }
    }
  }

  @Test("throw CancellationError when the awaiting task is cancelled before the head arrives")
  func cancelledBeforeHead() async throws {
    try await withServerAndBag { server, bag in
      let url = server.url("/delay?ms=20000&size=10&id=stream-head")
      let task = Task { try await makeCachingSession().stream(for: URLRequest(url: url), in: bag) }
      await server.expectRecord(id: "stream-head") { _ in true }
      task.cancel()
      await #expect(throws: CancellationError.self) { _ = try await task.value }
      await server.expectRecord(id: "stream-head") { $0.clientWentAway }
    }
  }
}
