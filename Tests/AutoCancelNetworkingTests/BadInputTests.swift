import AutoCancel
import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import Testing

@testable import AutoCancelNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Requests that cannot be made as asked: each ends once, with Foundation's error for it, and
/// leaves its bag.
@Suite("Requests given bad input", timeLimit(minutes: 1))
struct BadInputTests {
  /// A URL no protocol of the session loads, and a URL without a host.
  static let badURLs = [
    URL(string: "notaprotocol://127.0.0.1/bytes")!,
    URL(string: "http:///bytes")!,
  ]

  @Test("end a completion handler's request once, with an error that is not a cancellation")
  func completionHandler() async throws {
    await withEphemeralSession { session in
      for url in Self.badURLs {
        let bag = CancelBag()
        let calls = Protected(0)
        let (_, _, error) = await completionOnNewThread { handler in
          session.dataTask(with: url, in: bag) {
            calls.withLock { $0 += 1 }
            handler($0, $1, $2)
          }.resume()
        }
        #expect(error != nil, "\(url)")
        #expect(error?.isCancellation == false, "\(url)")
        await waitUntil("the request left its bag") { bag.count == 0 }
        // Whatever else the library would deliver has had its turn.
        await libraryQueueDrained()
        await delegateQueueDrained(of: session)
        #expect(calls.current == 1, "\(url)")
      }
    }
  }

  @Test("end an async call and a stream with an error that is not a cancellation")
  func asyncCallAndStream() async throws {
    await withEphemeralSession { session in
      for url in Self.badURLs {
        let bag = CancelBag()
        await #expect("\(url)") {
          _ = try await session.data(from: url, in: bag)
        } throws: { !($0 is CancellationError) }
        await #expect("\(url)") {
          _ = try await session.stream(for: URLRequest(url: url), in: bag)
        } throws: { !($0 is CancellationError) }
        #expect(bag.count == 0)
      }
    }
  }

  @Test("end an upload of a file that does not exist with an error")
  func uploadOfAMissingFile() async throws {
    try await withServer { server in
      await withEphemeralSession { session in
        let bag = CancelBag()
        var request = URLRequest(url: server.url("/upload?id=missing"))
        request.httpMethod = "POST"
        let missing = FileManager.default.temporaryDirectory
          .appendingPathComponent("AutoCancel-missing-\(UUID().uuidString)")
        await #expect {
          _ = try await session.upload(for: request, fromFile: missing, in: bag)
        } throws: { !($0 is CancellationError) }
        #expect(bag.count == 0)
      }
    }
  }
}
