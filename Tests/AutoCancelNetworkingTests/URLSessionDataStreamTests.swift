import AutoCancel
import AutoCancelNetworking
import Foundation
import LoopbackHTTPServer
import AutoCancelTestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("A streamed body", timeLimit(minutes: 1))
struct URLSessionDataStreamTests {
  @Test("stops the transfer at the server when the loop is left, even while the body is kept")
  func leavingTheLoopStopsTheTransfer() async throws {
    try await withServerAndBag { server, bag in
      let body = try await server.streamLongBody(id: "break", in: bag)
      for try await _ in body { break }
      let record = await server.expectRecord(id: "break") { $0.clientWentAway }
      #expect(record?.clientWentAway == true)
      #expect((record?.bytesSent ?? .max) < 50_000_000)
      #expect(bag.count == 0)
      withExtendedLifetime(body) {}
    }
  }

  @Test("ends the loop with CancellationError when the iterating task is cancelled")
  func cancelledConsumerThrows() async throws {
    try await withServerAndBag { server, bag in
      let body = try await server.streamLongBody(id: "consumer", in: bag)
      let (reading, started) = AsyncStream<Void>.makeStream()
      let reader = Task { () async throws -> Int in
        var total = 0
        for try await chunk in body {
          total += chunk.count
          started.yield()
        }
        return total
      }
      for await _ in reading { break }  // the reader is iterating
      reader.cancel()
      await #expect(throws: CancellationError.self) { try await reader.value }
      let record = await server.expectRecord(id: "consumer") { $0.clientWentAway }
      #expect(record?.clientWentAway == true)
    }
  }
}
