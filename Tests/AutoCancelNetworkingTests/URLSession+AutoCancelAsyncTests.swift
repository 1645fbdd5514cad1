import AutoCancelTestSupport
import AutoCancel
import AutoCancelNetworking
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Async URLSession calls bound to a bag", .timeLimit(.minutes(1)))
struct URLSessionAutoCancelAsyncTests {
  let server: TestServer

  init() throws {
    server = TestServer()
    try server.start()
  }

  @Test("return the body and leave the bag when they complete")
  func dataCompletes() async throws {
    let bag = CancelBag()
    let (data, response) = try await makeCachingSession().data(
      from: server.url("/bytes?size=4096"), in: bag)
    #expect(data.count == 4096)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    #expect(bag.count == 0)
  }

  @Test("throw the bag's reason when the bag ends mid-download, and the server sees it")
  func bagEndsMidDownload() async throws {
    let bag = CancelBag()
    let url = server.url("/slow?size=50000000&chunk=16384&interval_ms=20&id=async-bag")
    Task {
      await server.expectRecord(id: "async-bag") { $0.bytesSent >= 65_536 }
      bag.end(reason: .custom("screen closed"))
    }
    let error = await #expect(throws: CancelledError.self) {
      _ = try await makeCachingSession().data(from: url, in: bag)
    }
    #expect(error?.reason == .custom("screen closed"))
    let record = try #require(await server.waitForRecord(id: "async-bag"))
    #expect(record.clientWentAway)
    #expect(bag.count == 0)
  }

  @Test("throw ownerGone when the owner that stores the bag goes away mid-download")
  func ownerGoesAway() async throws {
    let owner = Slot(Owner())
    let url = server.url("/slow?size=50000000&chunk=16384&interval_ms=20&id=async-owner")
    let session = makeCachingSession()
    let task = Task { try await session.data(from: url, in: owner.peek { $0!.cancelBag }) }
    await server.expectRecord(id: "async-owner") { $0.bytesSent >= 65_536 }
    _ = owner.take()  // the last reference to the owner
    let error = await #expect(throws: CancelledError.self) { _ = try await task.value }
    #expect(error?.reason == .ownerGone)
    let record = try #require(await server.waitForRecord(id: "async-owner"))
    #expect(record.clientWentAway)
  }

  @Test("throw CancelledError when the awaiting task is cancelled, and the server sees it")
  func swiftTaskCancelled() async throws {
    let bag = CancelBag()
    let url = server.url("/slow?size=50000000&chunk=16384&interval_ms=20&id=async-task")
    let task = Task { try await makeCachingSession().data(from: url, in: bag) }
    await server.expectRecord(id: "async-task") { $0.bytesSent >= 65_536 }
    task.cancel()
    let error = await #expect(throws: CancelledError.self) { _ = try await task.value }
    #expect(error?.reason == .explicit)
    let record = try #require(await server.waitForRecord(id: "async-task"))
    #expect(record.clientWentAway)
    #expect(bag.count == 0)
  }

  @Test("inside a bag task, report the reason the bag gave")
  func bagTaskReason() async throws {
    let bag = CancelBag()
    let url = server.url("/slow?size=50000000&chunk=16384&interval_ms=20&id=async-key")
    let requests = CancelBag()  // stays open: the bag task's cancellation stops the request
    let task = bag.task { try await makeCachingSession().data(from: url, in: requests) }
    await server.expectRecord(id: "async-key") { $0.bytesSent >= 65_536 }
    bag.cancelAll(reason: .replaced)
    let error = await #expect(throws: CancelledError.self) { _ = try await task.value }
    #expect(error?.reason == .replaced)
  }

  @Test("throw at once, sending nothing, when the bag already ended")
  func endedBag() async throws {
    let bag = CancelBag()
    bag.end(reason: .ownerGone)
    let error = await #expect(throws: CancelledError.self) {
      _ = try await URLSession.shared.data(from: server.url("/bytes?size=1&id=never"), in: bag)
    }
    #expect(error?.reason == .ownerGone)
  }

  @Test("upload a body and download a file")
  func uploadAndDownload() async throws {
    let bag = CancelBag()
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
