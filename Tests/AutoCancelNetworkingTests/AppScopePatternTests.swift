import AutoCancel
import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import Testing

/// The article "Work That Outlives Its Owner", as it shows it (`AppScopeSamples.swift`),
/// against a server that reads uploads slowly and says whether the client went away.
@Suite("An upload bound to the app scope", timeLimit(minutes: 1))
@MainActor
struct AppScopePatternTests {
  let server: TestServer

  /// 16 MiB: far more than the socket buffers between client and server hold, so that a
  /// client that stops mid-body cannot have handed the server the rest already.
  static let body = Data(count: 16 << 20)

  init() throws {
    server = TestServer()
    try server.start()
  }

  /// An upload the server reads at 256 KiB every 10 ms: about 0.7 s for the whole body.
  func slowUpload(id: String) -> URL {
    server.url("/upload?chunk=262144&interval_ms=10&id=\(id)")
  }

  /// Returns once nothing runs under the outbox key of `app`: the last upload returned (and
  /// delivered its reply, which it does before returning).
  nonisolated static func waitUntilOutboxIsIdle(
    _ app: AppScope, sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    await waitUntil("the outbox is idle", sourceLocation: sourceLocation) {
      !app.cancelBag.isRunning(key: "outbox")
    }
  }

  /// Returns once the server has read part of the body, `id`'s, and not all of it.
  func waitUntilMidUpload(_ id: String) async {
    await server.expectRecord(id: id) { record in
      record.requestBodyBytes >= 1 << 20 && !record.isFinished
    }
  }

  @Test("keeps sending when the screen that sent it goes away: the whole body arrives")
  func outlivesTheScreen() async throws {
    let app = AppScope()
    var screen: ComposeScreen? = ComposeScreen(app: app)
    screen?.send(Self.body, to: slowUpload(id: "outlives"))
    await waitUntilMidUpload("outlives")
    weak var released: ComposeScreen?
    released = screen
    screen = nil
    #expect(released == nil, "the upload's task holds the screen")
    #expect(app.cancelBag.isRunning(key: "outbox"))
    let record = await server.expectRecord(id: "outlives") { $0.isFinished }
    #expect(record?.requestBodyBytes == Self.body.count)
    #expect(record?.completed == true)
    #expect(record?.clientWentAway == false)
    await Self.waitUntilOutboxIsIdle(app)
    #expect(app.cancelBag.count == 0)
  }

  @Test("is cancelled when the app scope goes: the server sees the client leave mid-body")
  func endsWithTheAppScope() async throws {
    var app: AppScope? = AppScope()
    var screen: ComposeScreen? = ComposeScreen(app: app!)
    screen?.send(Self.body, to: slowUpload(id: "app-gone"))
    await waitUntilMidUpload("app-gone")
    screen = nil  // the upload goes on
    #expect(server.record(id: "app-gone")?.isFinished == false)
    app = nil  // its bag ends, ownerGone
    let record = await server.expectRecord(id: "app-gone") { $0.isFinished }
    #expect(record?.clientWentAway == true)
    #expect(record?.completed == false)
    #expect(record.map { $0.requestBodyBytes < Self.body.count } == true)
  }

  @Test("is cancelled when the app scope signs out, and the app scope stays usable")
  func cancelledBySignOut() async throws {
    let app = AppScope()
    let screen = ComposeScreen(app: app)
    screen.send(Self.body, to: slowUpload(id: "signed-out"))
    await waitUntilMidUpload("signed-out")
    app.signOut()
    let record = await server.expectRecord(id: "signed-out") { $0.isFinished }
    #expect(record?.clientWentAway == true)
    #expect(screen.lastReply == nil)
    await Self.waitUntilOutboxIsIdle(app)
    screen.send(Data(count: 1000), to: server.url("/upload?id=after-sign-out"))
    await Self.waitUntilOutboxIsIdle(app)
    #expect(screen.lastReply.map { String(decoding: $0, as: UTF8.self) } == "1000")
  }

  @Test("is cancelled by its deadline after the screen is gone: the server sees the close")
  func cancelledByItsDeadline() async throws {
    guard #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) else { return }
    let app = AppScope()
    var screen: ComposeScreen? = ComposeScreen(app: app)
    // Read at 64 KiB every 50 ms, the body takes about 13 s. The limit counts from the launch:
    // long enough for the request to reach the server on a machine busy with every other
    // test, and well before the body is through.
    let url = server.url("/upload?chunk=65536&interval_ms=50&id=deadline")
    screen?.saveDraft(Self.body, to: url, within: .seconds(8))
    await server.expectRecord(id: "deadline") { $0.requestBodyBytes > 0 }
    screen = nil
    let record = await server.expectRecord(id: "deadline") { $0.isFinished }
    #expect(record?.clientWentAway == true)
    #expect(record.map { $0.requestBodyBytes < Self.body.count } == true)
  }
}
