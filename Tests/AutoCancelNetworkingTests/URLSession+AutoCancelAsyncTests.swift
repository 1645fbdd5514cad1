import AutoCancelTestSupport
import AutoCancel
import AutoCancelNetworking
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Async URLSession calls bound to a bag", timeLimit(minutes: 1))
struct URLSessionAutoCancelAsyncTests {
  /// Waits until the request `id` is mid-body, runs `cancel`, and checks what a cancel there
  /// leads to: `call` throws CancellationError, the server sees the client leave, and `bag`
  /// holds nothing.
  func expectCancelledMidBody<Success>(
    _ call: Task<Success, any Error>, id: String, on server: LoopbackHTTPServer,
    bag: CancelBag, sourceLocation: SourceLocation = #_sourceLocation, by cancel: () -> Void
  ) async {
    await server.expectRecord(id: id, sourceLocation: sourceLocation) { $0.bytesSent >= 65_536 }
    cancel()
    await #expect(throws: CancellationError.self, sourceLocation: sourceLocation) {
      _ = try await call.value
    }
    await server.expectRecord(id: id, sourceLocation: sourceLocation) { $0.clientWentAway }
    #expect(bag.count == 0, sourceLocation: sourceLocation)
  }

  @Test("return the body and leave the bag when they complete")
  func dataCompletes() async throws {
    try await withServerAndBag { server, bag in
      let (data, response) = try await makeCachingSession().data(
        from: server.url("/bytes?size=4096"), in: bag)
      #expect(data.count == 4096)
      #expect((response as? HTTPURLResponse)?.statusCode == 200)
      #expect(bag.count == 0)
    }
  }

  @Test("throw CancellationError when the bag ends mid-download, and the server sees it")
  func bagEndsMidDownload() async throws {
    try await withServerAndBag { server, bag in
      let url = server.longBodyURL(id: "async-bag")
      let call = Task { try await makeCachingSession().data(from: url, in: bag) }
      await expectCancelledMidBody(call, id: "async-bag", on: server, bag: bag) {
        bag.end(reason: .custom("screen closed"))
      }
    }
  }

  @Test("throw CancellationError when the awaiting task is cancelled, and the server sees it")
  func swiftTaskCancelled() async throws {
    try await withServerAndBag { server, bag in
      let url = server.longBodyURL(id: "async-task")
      let task = Task { try await makeCachingSession().data(from: url, in: bag) }
      await expectCancelledMidBody(task, id: "async-task", on: server, bag: bag) { task.cancel() }
      #expect((await task.result).isCancellationFailure)
    }
  }

  @Test("inside a bag task, stop when the bag cancels all its work")
  func bagTaskCancelAll() async throws {
    try await withServerAndBag { server, bag in
      let url = server.longBodyURL(id: "async-key")
      let task = bag.task { try await makeCachingSession().data(from: url, in: nil) }
      await expectCancelledMidBody(task, id: "async-key", on: server, bag: bag) {
        bag.cancelAll(reason: .replaced)
      }
    }
  }

  @Test("throw at once, sending nothing, when the bag already ended")
  func endedBag() async throws {
    try await withServerAndBag { server, bag in
      bag.end(reason: .ownerGone)
      await #expect(throws: CancellationError.self) {
        _ = try await URLSession.shared.data(from: server.url("/bytes?size=1&id=never"), in: bag)
      }
      // A request sent afterwards arrives; the cancelled one did not.
      _ = try await URLSession.shared.data(from: server.url("/bytes?size=1&id=after"), in: nil)
      #expect(server.records.map(\.id) == ["after"])
    }
  }

  @Test("throw at once, sending nothing, when the awaiting task was already cancelled")
  func cancelledTask() async throws {
    try await withServer { server in
      let url = server.url("/bytes?size=1&id=never")
      let task = Task {
        await suspendUntilCancelled()
        return try await URLSession.shared.data(from: url, in: nil)
      }
      task.cancel()
      await #expect(throws: CancellationError.self) { _ = try await task.value }
      _ = try await URLSession.shared.data(from: server.url("/bytes?size=1&id=after"), in: nil)
      #expect(server.records.map(\.id) == ["after"])
    }
  }

  @Test("upload a body and download a file")
  func uploadAndDownload() async throws {
    try await withServerAndBag { server, bag in
      let session = makeCachingSession()
      var request = URLRequest(url: server.url("/upload"))
      request.httpMethod = "POST"
      let (reply, _) = try await session.upload(for: request, from: Data(count: 1234), in: bag)
      #expect(String(decoding: reply, as: UTF8.self) == "1234")
      let (file, _) = try await session.download(from: server.url("/bytes?size=7000"), in: bag)
      defer { try? FileManager.default.removeItem(at: file) }
      let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
      #expect(size == 7000)
      #expect(bag.count == 0)
    }
  }
}

extension Result {
  /// Whether this is a failure that `isCancellation` recognises.
  var isCancellationFailure: Bool {
    if case .failure(let error) = self { return error.isCancellation }
    return false
  }
}
