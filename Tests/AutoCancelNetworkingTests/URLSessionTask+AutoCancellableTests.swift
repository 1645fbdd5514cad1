import AutoCancelTestSupport
import AutoCancel
import AutoCancelNetworking
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Raw URLSession tasks and operations in a bag", .timeLimit(.minutes(1)))
struct URLSessionTaskAutoCancellableTests {
  @Test("a raw task is cancelled without blocking when its owner goes away mid-download")
  func rawTaskCancelled() async throws {
    let server = TestServer()
    try server.start()
    let owner = Slot(Owner())
    let url = server.url("/slow?size=50000000&chunk=16384&interval_ms=20&id=raw")
    let error = await withCheckedContinuation { continuation in
      let task = URLSession(configuration: .default).dataTask(with: url) { _, _, error in
        continuation.resume(returning: error)
      }
      owner.peek { _ = $0!.cancelBag.add(task) }
      task.resume()
      Task {
        await server.expectRecord(id: "raw") { $0.bytesSent >= 65_536 }
        _ = owner.take()
      }
    }
    #expect((error as? URLError)?.code == .cancelled)
    let record = try #require(await server.waitForRecord(id: "raw"))
    #expect(record.clientWentAway)
  }

  @Test("an operation is cancelled when its bag ends")
  func operationCancelled() {
    let bag = CancelBag()
    let operation = BlockOperation {}
    bag.add(operation)
    bag.end(reason: .ownerGone)
    #expect(operation.isCancelled)
  }
}
