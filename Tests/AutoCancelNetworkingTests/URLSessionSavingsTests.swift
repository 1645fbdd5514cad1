import AutoCancel
import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import Testing

@testable import AutoCancelNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Every test reads the account of its own server's port: the tests that run beside it, and
/// cancel requests of their own, cannot change what it reads.
@Suite("The account of what URLSession cancels saved", .serialized, timeLimit(minutes: 1))
struct URLSessionSavingsTests {
  let session = makeCachingSession()

  init() {
    URLSessionSavings.enable()
  }

  /// Runs `body` with a server of its own, a new bag, and `counted`, what was counted for the
  /// server's port since it started.
  func withCountedServer(
    _ body:
      (LoopbackHTTPServer, CancelBag, _ counted: @escaping @Sendable () -> URLSessionSavings)
      async throws -> Void
  ) async throws {
    try await withServerAndBag { server, bag in
      let before = SavingsAccount.shared.account(port: server.port)
      try await body(server, bag) {
        SavingsAccount.shared.account(port: server.port).since(before)
      }
    }
  }

  /// Ends `bag`, whose requests have all ended, and checks that the account counted nothing
  /// for the server.
  func expectNothingCounted(
    afterEnding bag: CancelBag, _ counted: () -> URLSessionSavings,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    bag.end()
    await libraryQueueDrained()
    #expect(counted() == URLSessionSavings(), sourceLocation: sourceLocation)
  }

  @Test(
    "counts a request cancelled before it is sent as not sent, and the server sees nothing",
    arguments: [BoundForm.asyncCall, .completionHandler, .stream])
  func notSent(form: BoundForm) async throws {
    try await withCountedServer { server, bag, counted in
      bag.end()
      await form.start(server.url("/bytes?size=10&id=never"), in: bag, session: session).value
      var expected = URLSessionSavings()
      expected.cancelledBeforeSent = 1
      await waitUntil("the cancel is counted") { counted().cancelled > 0 }
      await libraryQueueDrained()
      #expect(counted() == expected)
      #expect(server.record(id: "never") == nil)
      #expect(server.connections.accepted == 0)
    }
  }

  @Test("counts a raw task whose bag ended before it was resumed as not sent")
  func rawTaskNotSent() async throws {
    try await withCountedServer { server, bag, counted in
      let ended = Completion<Data>()
      let url = server.url("/bytes?size=10&id=never")
      let task = await onNewThread {
        let task = session.dataTask(with: url, completionHandler: ended.handler)
        bag.add(task)
        return task
      }
      bag.end()
      await libraryQueueDrained()
      await onNewThread { task.resume() }  // does nothing: the task was cancelled
      _ = await ended.result
      var expected = URLSessionSavings()
      expected.cancelledBeforeSent = 1
      #expect(counted() == expected)
      #expect(server.record(id: "never") == nil)
    }
  }

  @Test("counts a helper's task that its bag cancelled before the app resumed it as not sent")
  func helperTaskNotSent() async throws {
    try await withCountedServer { server, bag, counted in
      let ended = Completion<Data>()
      let url = server.url("/bytes?size=10&id=never")
      let task = await onNewThread {
        session.dataTask(with: url, in: bag, completionHandler: ended.handler)
      }
      bag.cancelAll()
      let error = await ended.error
      #expect((error as? URLError)?.code == .cancelled)
      await waitUntil("the cancel is counted") { counted().cancelled > 0 }
      await onNewThread { task.resume() }  // does nothing: the task was cancelled
      var expected = URLSessionSavings()
      expected.cancelledBeforeSent = 1
      #expect(counted() == expected)
      await libraryQueueDrained()
      #expect(server.record(id: "never") == nil)
      #expect(server.connections.accepted == 0)
    }
  }

  @Test(
    "counts a request cancelled while the server holds its head as awaiting the response",
    arguments: BoundForm.allCases)
  func awaitingResponse(form: BoundForm) async throws {
    try await withCountedServer { server, bag, counted in
      let ended = form.start(
        server.url("/delay?ms=60000&size=10&id=held"), in: bag, session: session)
      await server.expectRecord(id: "held") { _ in true }
      bag.end()
      await ended.value
      await waitUntil("the cancel is counted") { counted().cancelled > 0 }
      await libraryQueueDrained()
      var expected = URLSessionSavings()
      expected.cancelledAwaitingResponse = 1
      #expect(counted() == expected)
      await server.expectRecord(id: "held") { $0.clientWentAway }
    }
  }

  @Test(
    "counts a request cancelled mid-body as receiving it, with the bytes received, within one socket buffer of what the server sent, and the bytes avoided",
    arguments: BoundForm.allCases)
  func receivingBody(form: BoundForm) async throws {
    try await withCountedServer { server, bag, counted in
      // 200 KB/s: a client that keeps up holds little in its sockets' buffers.
      let size: Int64 = 50_000_000
      let url = server.url("/slow?size=\(size)&chunk=4096&interval_ms=20&id=body")
      let ended = form.start(url, in: bag, session: session)
      await server.expectRecord(id: "body") { $0.bytesSent >= 16_384 }
      await clientHoldsHead(id: "body")
      bag.end()
      await ended.value
      await waitUntil("the cancel is counted") { counted().cancelled > 0 }
      let record = try #require(await server.expectRecord(id: "body") { $0.isFinished })
      let saved = counted()
      #expect(saved.cancelled == 1)
      #expect(saved.cancelledReceivingBody == 1)
      #if canImport(FoundationNetworking)
        if form == .rawTask {
          // FoundationNetworking counts no received byte of a data task, and a raw task's
          // bytes do not pass through the library: what the cancel avoided is not known, and
          // nothing is made up.
          #expect(saved.cancelledWithUnknownRemainder == 1)
          #expect(saved.bytesReceivedBeforeCancel == 0)
          #expect(saved.bytesAvoided == 0)
          return
        }
      #endif
      let sent = Int64(record.bytesSent)
      #expect(saved.bytesReceivedBeforeCancel > 0)
      // What the client received is what the server sent, less what was still in the
      // sockets' buffers when the connection closed.
      #expect(saved.bytesReceivedBeforeCancel <= sent)
      #expect(saved.bytesReceivedBeforeCancel >= sent - socketBuffer, "sent \(sent)")
      #expect(saved.bytesAvoided == size - saved.bytesReceivedBeforeCancel)
      #expect(saved.cancelledWithUnknownRemainder == 0)
    }
  }

  @Test("counts a body of unknown length as such, and nothing as avoided")
  func unknownLength() async throws {
    try await withCountedServer { server, bag, counted in
      let url = server.url("/slow?size=50000000&chunk=16384&interval_ms=20&chunked=1&id=chunked")
      let ended = BoundForm.asyncCall.start(url, in: bag, session: session)
      await server.expectRecord(id: "chunked") { $0.bytesSent >= 65_536 }
      await clientHoldsHead(id: "chunked")
      bag.end()
      await ended.value
      await waitUntil("the cancel is counted") { counted().cancelled > 0 }
      let saved = counted()
      #expect(saved.cancelledReceivingBody == 1)
      #expect(saved.cancelledWithUnknownRemainder == 1)
      #expect(saved.bytesReceivedBeforeCancel > 0)
      #expect(saved.bytesAvoided == 0)
    }
  }

  @Test("counts nothing for requests that finished", arguments: BoundForm.allCases)
  func finished(form: BoundForm) async throws {
    try await withCountedServer { server, bag, counted in
      await form.start(server.url("/bytes?size=100000&id=whole"), in: bag, session: session).value
      // The server marks the request completed once its last write returned, which may come
      // after the client already holds the whole body.
      await server.expectRecord(id: "whole") { $0.completed }
      // A raw task's handler runs before URLSession marks the task completed; until then the
      // bag holds it as running, and an end would cancel it (see the type's contract).
      await waitUntil("the bag has let the finished request go") { bag.count == 0 }
      await expectNothingCounted(afterEnding: bag, counted)
    }
  }

  @Test("counts nothing when the app cancels a helper's task itself")
  func appCancels() async throws {
    try await withCountedServer { server, bag, counted in
      let url = server.longBodyURL(id: "by-app")
      let task = await resumedOnNewThread { session.dataTask(with: url, in: bag) { _, _, _ in } }
      await server.expectRecord(id: "by-app") { $0.bytesSent >= 65_536 }
      await onNewThread { task.cancel() }
      await waitUntil("the task completed") { task.state == .completed }
      await server.expectRecord(id: "by-app") { $0.clientWentAway }
      await expectNothingCounted(afterEnding: bag, counted)
    }
  }

  /// Returns once the client's task for the request `id` holds its response's head: the
  /// phase the library counts a cancel in is the client's, and bytes the server sent can sit
  /// unread in the socket on a loaded machine. The task is the session's own (a raw task) or,
  /// on Linux, its twin's (a task the library made).
  func clientHoldsHead(id: String, sourceLocation: SourceLocation = #_sourceLocation) async {
    #if canImport(FoundationNetworking)
      let sessions = [session, TaskQueue.sync { TwinSessions.shared.twin(for: session).session }]
    #else
      let sessions = [session]
    #endif
    var task: URLSessionTask?
    for session in sessions where task == nil {
      let tasks = await withCheckedContinuation { done in
        session.getAllTasks { done.resume(returning: $0) }
      }
      task = tasks.first { $0.originalRequest?.url?.query?.contains("id=\(id)") == true }
    }
    guard let task else {
      Issue.record("no task of the client asks for \(id)", sourceLocation: sourceLocation)
      return
    }
    // The signs of a head that the library reads too: FoundationNetworking sets a raw task's
    // expected length with the head, and its response only at the end.
    await waitUntil("the client holds the head of \(id)", sourceLocation: sourceLocation) {
      task.response != nil || task.countOfBytesExpectedToReceive != 0
    }
  }

  @Test("counts a caller that joined a shared download as one join")
  func sharedJoin() async throws {
    try await withCountedServer { server, _, counted in
      let shared = SharedURLRequests()
      let request = URLRequest(
        url: server.longBodyURL(id: "shared"))
      let first = Task { try await shared.data(for: request, session: session) }
      // Mid-body, as in the mid-body test above: four chunks past the head, not just the head,
      // so that the cancel below comes while the body is being received.
      await server.expectRecord(id: "shared") { $0.bytesSent >= 65_536 }
      await clientHoldsHead(id: "shared")
      let second = Task { try await shared.data(for: request, session: session) }
      await waitUntil("both callers share the download") {
        counted().joinedSharedRequests == 1
      }
      #expect(counted().joinedSharedRequests == 1)
      first.cancel()
      second.cancel()
      _ = await (first.result, second.result)
      await waitUntil("the download's cancel is counted") { counted().cancelled > 0 }
      #expect(counted().joinedSharedRequests == 1)
      #expect(counted().cancelledReceivingBody == 1)
    }
  }
}

/// What a client's count of a body's bytes may trail the server's by: the bytes the server
/// wrote that were still in the loopback connection's buffers when the client closed it. One
/// socket buffer, 64 KiB, for a client that reads as the bytes come; under a sanitizer,
/// which stalls every thread of the client for up to seconds while the server goes on
/// writing, what Linux lets those buffers grow to (`tcp_rmem`, `tcp_wmem`: 6 and 4 MiB).
let socketBuffer: Int64 = Sanitizers.thread || Sanitizers.address ? 10 << 20 : 64 << 10

/// The ways a request is bound to a bag, each counted() on its own path.
enum BoundForm: String, TestArgument {
  case asyncCall = "an async call"
  case completionHandler = "a completion-handler helper"
  case stream = "a stream"
  case rawTask = "a raw task"

  /// Starts a GET of `url` bound to `bag`; the task returns once the request has ended,
  /// whichever way (its body read to the end, for a stream).
  func start(_ url: URL, in bag: CancelBag, session: URLSession) -> Task<Void, Never> {
    switch self {
    case .asyncCall:
      return Task { _ = try? await session.data(from: url, in: bag) }
    case .completionHandler:
      return Task {
        _ = await completionOnNewThread { done in
          session.dataTask(with: url, in: bag, completionHandler: done).resume()
        }
      }
    case .stream:
      return Task {
        guard let (body, _) = try? await session.stream(for: URLRequest(url: url), in: bag) else {
          return
        }
        do {
          for try await _ in body {}
        } catch {}
      }
    case .rawTask:
      return Task {
        _ = await completionOnNewThread { done in
          let task = session.dataTask(with: url, completionHandler: done)
          bag.add(task)
          task.resume()
        }
      }
    }
  }
}
