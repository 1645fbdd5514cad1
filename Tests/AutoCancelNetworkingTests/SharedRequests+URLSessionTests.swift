import AutoCancel
import AutoCancelTestSupport
@_spi(Testing) import AutoCancelNetworking
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Shared URLSession requests", timeLimit(minutes: 1))
struct SharedRequestsURLSessionTests {
  /// Each test's own: Swift Testing makes the suite anew for every test.
  let session = makeCachingSession()
  let shared = SharedURLRequests()

  @Test("download once for several owners, who all get the body")
  func downloadsOnce() async throws {
    try await withServer { server in
      // About 20 s at the server's pace: the last owner joins long before the body ends. If it
      // ever did not, the test fails with a message rather than passing by luck.
      let request = URLRequest(
        url: server.url("/slow?size=16000000&chunk=16384&interval_ms=20&id=once"))
      let owners = (0..<4).map { _ in Owner() }
      let tasks = owners.map { owner in
        owner.cancelBag.task { try await shared.data(for: request, session: session) }
      }
      await waitUntil("all four owners share the download, or it ends") {
        shared.callerCount(for: request) == 4 || server.record(id: "once")?.isFinished == true
      }
      #expect(
        shared.callerCount(for: request) == 4, "the download ended before every owner joined")
      for task in tasks {
        let data = try await task.value.data
        #expect(data.count == 16_000_000)
      }
      #expect(server.records.filter { $0.id == "once" }.count == 1)
      withExtendedLifetime(owners) {}
    }
  }

  @Test("go on for the other owners when one owner goes away")
  func oneOwnerLeaves() async throws {
    try await withServer { server in
      // Too slow to finish during the test, however loaded the machine: the second owner joins
      // it for sure, and only the test ends it.
      let request = URLRequest(url: server.longBodyURL(id: "stay"))
      var leaving: Owner? = Owner()
      let staying = Owner()
      let left = leaving!.cancelBag.task { try await shared.data(for: request, session: session) }
      _ = try #require(await server.expectRecord(id: "stay", where: { $0.bytesSent > 0 }))
      let stays = staying.cancelBag.task { try await shared.data(for: request, session: session) }
      await waitUntil("both owners share the download") { shared.callerCount(for: request) == 2 }
      leaving = nil  // its bag ends: its task stops waiting, the download goes on
      await #expect(throws: CancellationError.self) { try await left.value }
      #expect(shared.callerCount(for: request) == 1)
      // The download goes on: the server keeps sending to a client that is still there.
      let sentAtLeave = try #require(server.record(id: "stay")).bytesSent
      let goingOn = try #require(
        await server.expectRecord(id: "stay") {
          $0.bytesSent > sentAtLeave + 65_536 || $0.clientWentAway
        })
      #expect(!goingOn.clientWentAway)
      staying.cancelBag.end()
      await #expect(throws: CancellationError.self) { try await stays.value }
      #expect(server.records.filter { $0.id == "stay" }.count == 1)
    }
  }

  @Test("cancel the download at the server when the last owner goes away")
  func lastOwnerLeaves() async throws {
    try await withServer { server in
      // Too slow to finish during the test, however loaded the machine: only a cancel ends it.
      let request = URLRequest(url: server.longBodyURL(id: "all-gone"))
      var owners: [Owner] = [Owner(), Owner()]
      let tasks = owners.map { owner in
        owner.cancelBag.task { try await shared.data(for: request, session: session) }
      }
      _ = try #require(await server.expectRecord(id: "all-gone", where: { $0.bytesSent > 0 }))
      owners.removeAll()
      for task in tasks {
        await #expect(throws: CancellationError.self) { try await task.value }
      }
      let record = try #require(
        await server.expectRecord(id: "all-gone", where: { $0.clientWentAway }))
      #expect(record.bytesSent < 50_000_000)
    }
  }
}
