import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A long-lived owner that binds raw requests the way code migrated from
/// `[self autoCancelRequestOnDealloc:request]` does, and never finishes them.
final class Downloader: AutoCancelOwner, Sendable {
  let cancelBag = CancelBag()
  let session: URLSession

  init(session: URLSession) { self.session = session }

  /// Starts a request bound to this owner; returns the task so that tests can watch it.
  @discardableResult
  func fetch(
    _ url: URL, done: @escaping @Sendable (Data?, (any Error)?) -> Void
  ) -> URLSessionDataTask {
    let task = session.dataTask(with: url) { data, _, error in done(data, error) }
    autoCancel(task)
    task.resume()
    return task
  }
}

/// Holds a task without keeping it alive.
final class WeakTask: @unchecked Sendable {
  // Safety: written once in `init`; the weak reference itself is read atomically by the
  // runtime.
  weak var task: URLSessionTask?
  init(_ task: URLSessionTask) { self.task = task }
}

@Suite("Raw URLSession tasks in a bag", timeLimit(minutes: 3))
struct CancelBagURLSessionTaskTests {
  let server: TestServer

  init() throws {
    server = TestServer()
    try server.start()
  }

  @Test("are cancelled without blocking when their owner goes away mid-download")
  func rawTaskCancelled() async throws {
    var downloader: Downloader? = Downloader(session: URLSession(configuration: .default))
    let (errors, reported) = AsyncStream<(any Error)?>.makeStream()
    downloader?.fetch(server.url("/slow?size=50000000&chunk=16384&interval_ms=20&id=raw")) {
      _, error in reported.yield(error)
    }
    await server.expectRecord(id: "raw") { $0.bytesSent >= 65_536 }
    downloader = nil
    var iterator = errors.makeAsyncIterator()
    let error = await iterator.next() ?? nil
    #expect((error as? URLError)?.code == .cancelled)
    #expect(error?.isCancellation == true)
    let record = await server.expectRecord(id: "raw") { $0.clientWentAway }
    #expect(record?.completed == false)
  }

  @Test(
    "bound 10,000 times to a long-lived owner, leave it holding a few and free the finished ones")
  func tenThousandRawBinds() async throws {
    let count = 10_000
    var downloader: Downloader? = Downloader(session: URLSession(configuration: .default))
    let url = server.url("/bytes?size=64")
    let residentBefore = residentKilobytes()
    var watched: [WeakTask] = []
    watched.reserveCapacity(count)
    for _ in 0..<count {
      let received = await withCheckedContinuation { continuation in
        withAutoreleasePool {
          let task = downloader!.fetch(url) { data, _ in continuation.resume(returning: data) }
          watched.append(WeakTask(task))
        }
      }
      #expect(received?.count == 64)
    }
    let held = try #require(downloader?.cancelBag.count)
    let alive = watched.filter { $0.task != nil }.count
    print(
      "10,000 raw one-liner binds: \(held) items held, \(alive) tasks alive, resident "
        + "\(residentBefore.map(String.init) ?? "?") → \(residentKilobytes().map(String.init) ?? "?") kB"
    )
    #expect(held <= 64, "the bag keeps finished tasks: \(held) of \(count)")
    #expect(alive <= held, "finished tasks the bag dropped are still alive")

    // A request still in flight when the owner goes is cancelled at the server.
    downloader?.fetch(server.url("/slow?size=50000000&chunk=16384&interval_ms=20&id=last")) {
      _, _ in
    }
    await server.expectRecord(id: "last") { $0.bytesSent >= 65_536 }
    downloader = nil
    await server.expectRecord(id: "last") { $0.clientWentAway }
  }

  @Test("are left alone when cancelled after they completed, on Linux too")
  func cancelAfterCompletion() async throws {
    let session = URLSession(configuration: .default)  // URLCache.shared: the crash-prone kind
    let calls = CallCounter()
    let bag = CancelBag()
    let (done, completed) = AsyncStream<Void>.makeStream()
    let task = session.dataTask(with: server.url("/bytes?size=128&id=completed")) { _, _, _ in
      calls.record(0)
      completed.yield()
    }
    bag.add(task)
    task.resume()
    var iterator = done.makeAsyncIterator()
    await iterator.next()
    await waitUntil("the task reports completed") { task.state == .completed }
    task.cancel()  // Foundation's own cancel, on a completed task
    bag.end()  // the bag's cancel of the same task, from its queue
    await server.expectRecord(id: "completed")
    // A later request on the same session shows the session survived both cancels.
    let (data, _, error) = await completion { handler in
      session.dataTask(with: server.url("/bytes?size=32"), completionHandler: handler).resume()
    }
    #expect(error == nil && data?.count == 32)
    #expect(calls.counts == [0: 1], "the completion handler ran once")
    #expect(task.state == .completed)
  }
}
