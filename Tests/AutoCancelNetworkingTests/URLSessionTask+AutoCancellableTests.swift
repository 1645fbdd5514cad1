import AutoCancel
import AutoCancelDiagnostics
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
struct URLSessionTaskAutoCancellableTests {

  @Test("are cancelled without blocking when their owner goes away mid-download")
  func rawTaskCancelled() async throws {
    try await withServer { server in
      var downloader: Downloader? = Downloader(session: URLSession(configuration: .default))
      let url = server.longBodyURL(id: "raw")
      let ended = Completion<Data>()
      // Held weakly there: the release below is the owner's last reference.
      await onNewThread { [weak downloader] in
        _ = downloader?.fetch(url) { data, error in ended.handler(data, nil, error) }
      }
      await server.expectRecord(id: "raw") { $0.bytesSent >= 65_536 }
      downloader = nil
      let error = await ended.error
      #expect((error as? URLError)?.code == .cancelled)
      #expect(error?.isCancellation == true)
      let record = await server.expectRecord(id: "raw") { $0.clientWentAway }
      #expect(record?.completed == false)
    }
  }

  @Test(
    "bound 10,000 times to a long-lived owner, leave it holding a few and free the finished ones")
  func tenThousandRawBinds() async throws {
    try await withServer { server in
      let count = 10_000
      var downloader: Downloader? = Downloader(session: URLSession(configuration: .default))
      let url = server.url("/bytes?size=64")
      let residentBefore = residentKilobytes()
      // One request after another, all on one thread of their own: on Linux making and
      // resuming each task waits for FoundationNetworking's work queue.
      let (watched, sizes) = await onNewThread { [weak downloader] in
        var watched: [WeakTask] = []
        var sizes: [Int: Int] = [:]  // how many bodies of each size arrived; -1: none
        watched.reserveCapacity(count)
        for _ in 0..<count {
          let ended = Gate()
          let size = Protected<Int?>(nil)
          withAutoreleasePool {
            let task = downloader!.fetch(url) { data, _ in
              size.withLock { $0 = data?.count }
              ended.open()
            }
            watched.append(WeakTask(task))
          }
          ended.wait()
          sizes[size.current ?? -1, default: 0] += 1
        }
        return (watched, sizes)
      }
      #expect(sizes == [64: count])
      let held = try #require(downloader?.cancelBag.count)
      let alive = watched.filter { $0.task != nil }.count
      print(
        "10,000 raw one-liner binds: \(held) items held, \(alive) tasks alive, resident "
          + "\(residentBefore.map(String.init) ?? "?") → \(residentKilobytes().map(String.init) ?? "?") kB"
      )
      #expect(held <= 64, "the bag keeps finished tasks: \(held) of \(count)")
      // URLSession may keep a task that just completed alive a little longer: FoundationNetworking
      // forgets it on its work queue after marking it completed, CFNetwork when it is done.
      if alive > held {
        await waitUntil("the finished tasks the bag dropped are freed") {
          watched.filter { $0.task != nil }.count <= held
        }
      }

      // A request still in flight when the owner goes is cancelled at the server.
      let last = server.longBodyURL(id: "last")
      await onNewThread { [weak downloader] in _ = downloader?.fetch(last) { _, _ in } }
      await server.expectRecord(id: "last") { $0.bytesSent >= 65_536 }
      downloader = nil
      await server.expectRecord(id: "last") { $0.clientWentAway }
    }
  }

  @Test("are left alone when cancelled after they completed, on Linux too")
  func cancelAfterCompletion() async throws {
    try await withServerAndBag { server, bag in
      let session = URLSession(configuration: .default)  // URLCache.shared: the crash-prone kind
      let (task, ended) = await startRawTask(
        server.url("/bytes?size=128&id=completed"), on: session, in: bag)
      _ = await ended.result
      await waitUntil("the task reports completed") { task.state == .completed }
      await onNewThread { task.cancel() }  // Foundation's own cancel, on a completed task
      bag.end()  // the bag's cancel of the same task, from its queue
      await server.expectRecord(id: "completed")
      // A later request on the same session shows the session survived both cancels.
      let after = server.url("/bytes?size=32")
      let (data, _, error) = await completionOnNewThread { handler in
        session.dataTask(with: after, completionHandler: handler).resume()
      }
      #expect(error == nil && data?.count == 32)
      #expect(ended.callCount == 1, "the completion handler ran once")
      #expect(task.state == .completed)
    }
  }

  /// The sessions apps use: the shared one, and both standard configurations, each with a URL
  /// cache that FoundationNetworking asks when a data task resumes.
  enum SessionKind: String, TestArgument {
    case shared, `default`, ephemeral

    func make() -> URLSession {
      switch self {
      case .shared: URLSession.shared
      case .default: URLSession(configuration: .default)
      case .ephemeral: URLSession(configuration: .ephemeral)
      }
    }
  }

  /// Where the one-liner comes: before `resume()`, as the docs show it, or after, as code
  /// migrated from `[request start]; [self autoCancelRequestOnDealloc:request];` has it.
  enum Order: String, TestArgument {
    case bindThenResume, resumeThenBind
  }

  @Test(
    "are cut before their response head when their owner goes, on every kind of session",
    arguments: SessionKind.allCases, Order.allCases)
  func cutBeforeTheHead(kind: SessionKind, order: Order) async throws {
    try await withServer { server in
      let session = kind.make()
      var owner: Owner? = Owner()
      let ids = (0..<3).map { "head-\(kind.rawValue)-\(order.rawValue)-\($0)" }
      // The server holds the head for 20 s: a cancel that waits for it shows.
      let urls = ids.map { server.url("/delay?ms=20000&size=100&id=\($0)") }
      await onNewThread { [weak owner] in
        for url in urls {
          let task = session.dataTask(with: url)
          switch order {
          case .bindThenResume:
            owner?.autoCancel(task)
            task.resume()
          case .resumeThenBind:
            task.resume()
            owner?.autoCancel(task)
          }
        }
      }
      for id in ids { await server.expectRecord(id: id) { _ in true } }
      owner = nil
      for id in ids {
        let record = await server.expectRecord(id: id) { $0.clientWentAway }
        #expect(record?.bytesSent == 0, "\(id): the server sent its head before the client left")
      }
      if kind != .shared { session.finishTasksAndInvalidate() }
    }
  }

  @Test("leave their bag soon after a burst of 500 that all completed, with no later add")
  func burstLeaves() async throws {
    try await withServer { server in
      let downloader = Downloader(session: URLSession(configuration: .default))
      let url = server.url("/bytes?size=100")
      let (done, finished) = AsyncStream<Void>.makeStream()
      let first = await onNewThread {
        let tasks = (0..<500).map { _ in downloader.fetch(url) { _, _ in finished.yield() } }
        return WeakTask(tasks[0])
      }
      var arrived = 0
      for await _ in done {
        arrived += 1
        if arrived == 500 { break }
      }
      await waitUntil("the completed burst left the bag") { downloader.cancelBag.count == 0 }
      #expect(downloader.cancelBag.snapshot().isEmpty)
      await waitUntil("the first task is freed") { first.task == nil }
    }
  }

  @Test(
    "bound through a generic helper or as an existential, leave by themselves as well",
    arguments: ["generic", "existential"])
  func callSiteDoesNotDecide(site: String) async throws {
    try await withServer { server in
      let owner = Owner()
      await withEphemeralSession { session in
        let (done, finished) = AsyncStream<Void>.makeStream()
        let url = server.url("/bytes?size=10")
        await onNewThread {
          for _ in 0..<50 {
            let task = session.dataTask(with: url) { _, _, _ in finished.yield() }
            if site == "generic" {
              bindGenerically(task, to: owner)
            } else {
              let work: any AutoCancellable = task
              owner.cancelBag.add(work)
            }
            task.resume()
          }
        }
        var arrived = 0
        for await _ in done {
          arrived += 1
          if arrived == 50 { break }
        }
        await waitUntil("the completed tasks left the bag") { owner.cancelBag.count == 0 }
      }
    }
  }

  @Test("bound before resume() and never resumed, are cancelled when their owner goes")
  func neverResumedTaskCancelled() async throws {
    try await withServer { server in
      var owner: Owner? = Owner()
      let session = URLSession(configuration: .default)
      defer { session.finishTasksAndInvalidate() }
      let ended = Completion<Data>()
      let url = server.url("/bytes?size=10&id=never")
      // Only the bag holds the task: the owner's code dropped it without resuming.
      await onNewThread { [weak owner] in
        _ = owner?.autoCancel(session.dataTask(with: url, completionHandler: ended.handler))
      }
      owner = nil
      let error = await ended.error
      #expect((error as? URLError)?.code == .cancelled)
      #expect(server.record(id: "never") == nil)
    }
  }

  @Test("added to a bag that had ended, are cancelled before add returns: resume() sends nothing")
  func endedBagSendsNothing() async throws {
    try await withServerAndBag { server, bag in
      bag.end()
      let session = URLSession(configuration: .default)
      defer { session.finishTasksAndInvalidate() }
      // Made, added and resumed on one thread, in that order: the add cancels before it returns.
      let (task, ended) = await startRawTask(
        server.url("/bytes?size=10&id=ended"), on: session, in: bag)
      #expect((await ended.error as? URLError)?.code == .cancelled)
      await waitUntil("the task completed") { task.state == .completed }
      #expect(server.record(id: "ended") == nil)
      #expect(server.connections.accepted == 0, "a connection was opened for a cancelled task")
    }
  }

  @Test("are named by their public class in snapshots, raw or made by a helper")
  func namedInSnapshots() async throws {
    try await withServerAndBag { server, bag in
      await withEphemeralSession { session in
        let url = server.url("/delay?ms=20000&id=named")
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "POST"
        let upload = request
        await onNewThread {
          let tasks: [URLSessionTask] = [
            session.dataTask(with: url),
            session.downloadTask(with: url),
            session.uploadTask(with: upload, from: Data(count: 10)),
          ]
          for task in tasks { bag.add(task) }
          _ = session.dataTask(with: url, in: bag) { _, _, _ in }
          _ = session.downloadTask(with: url, in: bag) { _, _, _ in }
          _ = session.uploadTask(with: upload, from: Data(count: 10), in: bag) { _, _, _ in }
        }
        let names = bag.snapshot().map(\.workType)
        #expect(
          names == [
            "URLSessionDataTask", "URLSessionDownloadTask", "URLSessionUploadTask",
            "URLSessionDataTask", "URLSessionDownloadTask", "URLSessionUploadTask",
          ])
        bag.cancelAll()
      }
    }
  }
}

/// A user's generic helper around the one-liner.
private func bindGenerically<Work: AutoCancellable>(_ work: Work, to owner: some AutoCancelOwner) {
  owner.autoCancel(work)
}
