import AutoCancel
import AutoCancelDiagnostics
import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import Testing

/// The article "Work That Outlives Its Owner", as it shows it (`AppScopeSamples.swift`),
/// against a server that reads uploads slowly and says whether the client went away.
@Suite("An upload bound to the app scope", timeLimit(minutes: 1))
@MainActor
struct AppScopePatternTests {

  /// 8 MiB: twice what the socket buffers between client and server hold while the server
  /// holds an upload (about 4 MiB, most of it the client's send buffer), so that a client that
  /// stops mid-body cannot have handed the server the rest already. Made per test: a static
  /// `Data` would live to the end of the process in a form LeakSanitizer cannot follow.
  let body = Data(count: 8 << 20)

  /// The server reads this much of a held upload, then holds it until released.
  nonisolated static let hold = 512 << 10

  /// An upload the server holds after ``hold`` bytes, until `server.releaseUpload(id:)`: caught
  /// in the middle, however busy the machine is. Released, the rest is read at once.
  func heldUpload(on server: LoopbackHTTPServer, id: String) -> URL {
    server.url("/upload?hold=\(Self.hold)&id=\(id)")
  }

  /// A held upload whose rest, once released, is read at 64 KiB every 20 ms (about 2.5 s in
  /// all): a client that was cancelled before the release closes its connection, which its
  /// session does a moment after its task ended, long before the rest could arrive.
  func heldUploadReadSlowly(on server: LoopbackHTTPServer, id: String) -> URL {
    server.url("/upload?hold=\(Self.hold)&chunk=65536&interval_ms=20&id=\(id)")
  }

  /// Returns once the server holds the upload `id`, mid-body.
  func waitUntilHeld(_ id: String, on server: LoopbackHTTPServer) async {
    await server.expectRecord(id: id) { $0.requestBodyBytes >= Self.hold }
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

  /// Returns once `app`'s bag holds nothing: its work ended.
  nonisolated static func waitUntilEmpty(
    _ app: AppScope, sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    await waitUntil("the app's bag is empty", sourceLocation: sourceLocation) {
      app.cancelBag.count == 0
    }
  }

  /// Returns once `cancellations` holds a reason: the bag reported a cancel, which it does
  /// after the work has left it.
  nonisolated static func waitUntilReported(
    _ cancellations: Protected<[CancellationReason]>, timeout: Double = waitBound,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    await waitUntil("the bag reported a cancel", timeout: timeout, sourceLocation: sourceLocation) {
      !cancellations.current.isEmpty
    }
  }

  /// Returns once `updates` says that nothing runs any more: the client's task has returned
  /// (and given up its connection).
  nonisolated static func waitUntilStopped(_ updates: AsyncStream<Bool>) async {
    for await running in updates where !running { return }
  }

  @Test("keeps sending when the screen that sent it goes away: the whole body arrives")
  func outlivesTheScreen() async throws {
    try await withServer { server in
      let app = AppScope()
      var screen: ComposeScreen? = ComposeScreen(app: app)
      screen?.send(body, to: heldUpload(on: server, id: "outlives"))
      await waitUntilHeld("outlives", on: server)
      weak var released: ComposeScreen?
      released = screen
      screen = nil
      #expect(released == nil, "the upload's task holds the screen")
      #expect(app.cancelBag.isRunning(key: "outbox"))
      server.releaseUpload(id: "outlives")
      let record = await server.expectRecord(id: "outlives") { $0.isFinished }
      #expect(record?.requestBodyBytes == body.count)
      #expect(record?.completed == true)
      #expect(record?.clientWentAway == false)
      await Self.waitUntilOutboxIsIdle(app)
      #expect(app.cancelBag.count == 0)
    }
  }

  @Test("is cancelled when the app scope goes: the server sees the client leave mid-body")
  func endsWithTheAppScope() async throws {
    try await withServer { server in
      var app: AppScope? = AppScope()
      var screen: ComposeScreen? = ComposeScreen(app: app!)
      screen?.send(body, to: heldUploadReadSlowly(on: server, id: "app-gone"))
      await waitUntilHeld("app-gone", on: server)
      screen = nil  // the upload goes on
      #expect(app?.cancelBag.isRunning(key: "outbox") == true)
      // The stream holds the bag's storage, not the app scope: it follows the upload's end.
      let outbox = app!.cancelBag.runningUpdates(key: "outbox")
      app = nil  // its bag ends, ownerGone
      await Self.waitUntilStopped(outbox)
      await libraryQueueDrained()  // the task's cancel, made on the library's queue
      server.releaseUpload(id: "app-gone")
      let record = await server.expectRecord(id: "app-gone") { $0.isFinished }
      #expect(record?.clientWentAway == true)
      #expect(record?.completed == false)
      #expect(record.map { $0.requestBodyBytes < body.count } == true)
    }
  }

  @Test("is cancelled when the app scope signs out, and the app scope stays usable")
  func cancelledBySignOut() async throws {
    try await withServer { server in
      let app = AppScope()
      let screen = ComposeScreen(app: app)
      screen.send(body, to: heldUploadReadSlowly(on: server, id: "signed-out"))
      await waitUntilHeld("signed-out", on: server)
      app.signOut()
      await Self.waitUntilOutboxIsIdle(app)
      await libraryQueueDrained()  // the task's cancel, made on the library's queue
      server.releaseUpload(id: "signed-out")
      let record = await server.expectRecord(id: "signed-out") { $0.isFinished }
      #expect(record?.clientWentAway == true)
      #expect(record.map { $0.requestBodyBytes < body.count } == true)
      #expect(screen.lastReply == nil)
      screen.send(Data(count: 1000), to: server.url("/upload?id=after-sign-out"))
      await Self.waitUntilOutboxIsIdle(app)
      #expect(screen.lastReply.map { String(decoding: $0, as: UTF8.self) } == "1000")
    }
  }

  @Test("is cancelled by its deadline after the screen is gone: the server sees the close")
  func cancelledByItsDeadline() async throws {
    try await withServer { server in
      guard #available(iOS 16, macOS 13, tvOS 16, watchOS 9, *) else { return }
      let app = AppScope()
      var screen: ComposeScreen? = ComposeScreen(app: app)
      // The limit counts from the launch: a first post through the same app scope takes the
      // cost of a first request (and whatever else makes the machine slow to start one) before
      // the clock runs.
      screen?.send(Data(count: 1000), to: server.url("/upload?id=first-post"))
      await Self.waitUntilOutboxIsIdle(app)
      let cancellations = Protected<[CancellationReason]>([])
      app.cancelBag.observe { event in
        if case .cancelled(let reason) = event.kind { cancellations.withLock { $0.append(reason) } }
      }
      // 20 s: the deadline must fall while the server holds the upload, and in the first
      // seconds of a full run under ThreadSanitizer a request can take more than 5 s to reach
      // the server at all; a 5 s limit then cut it before the server held it.
      let limit = 20
      screen?.saveDraft(
        body, to: heldUploadReadSlowly(on: server, id: "deadline"), within: .seconds(limit))
      await waitUntilHeld("deadline", on: server)
      screen = nil
      // The limit cut the upload, which the server holds: due up to `limit` seconds from now,
      // so the wait for it counts its bound from then.
      await Self.waitUntilReported(cancellations, timeout: Double(limit) + waitBound)
      #expect(cancellations.current == [.timedOut])
      await Self.waitUntilEmpty(app)
      await libraryQueueDrained()  // the task's cancel, made on the library's queue
      server.releaseUpload(id: "deadline")
      let record = await server.expectRecord(id: "deadline") { $0.isFinished }
      #expect(record?.clientWentAway == true)
      #expect(record.map { $0.requestBodyBytes < body.count } == true)
    }
  }
}
