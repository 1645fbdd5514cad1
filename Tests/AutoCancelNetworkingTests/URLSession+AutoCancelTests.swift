import AutoCancelTestSupport
import AutoCancel
import AutoCancelDiagnostics
import AutoCancelNetworking
import Foundation
import LoopbackHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite(
  "URLSession tasks bound to a bag",
  timeLimit(minutes: 1))
struct URLSessionAutoCancelTests {

  @Test("deliver the body of a completed request and leave the bag")
  func completedRequestLeavesTheBag() async throws {
    try await withServerAndBag { server, bag in
      let session = makeCachingSession()
      let url = server.url("/bytes?size=2048&id=ok")
      let (data, response, error) = await completionOnNewThread { done in
        session.dataTask(with: url, in: bag, completionHandler: done).resume()
      }
      #expect(error == nil)
      #expect(data?.count == 2048)
      #expect((response as? HTTPURLResponse)?.statusCode == 200)
      #expect(bag.count == 0)
    }
  }

  @Test("record the caller's line as the work's call site, when the bag keeps call sites")
  func callSiteIsTheCallers() async throws {
    try await withServer { server in
      let bag = CancelBag(label: nil, switches: DiagnosticSwitches(keepsCallSites: true))
      let session = makeCachingSession()
      let url = server.url("/bytes?size=1&id=site")
      let line = #line + 1
      _ = await onNewThread { session.dataTask(with: url, in: bag) { _, _, _ in } }
      #expect(bag.snapshot().first?.callSite == CallSite(fileID: #fileID, line: UInt(line)))
      bag.end()
    }
  }

  @Test(
    "report URLError(.cancelled) when the owner goes mid-download, and the server sees the client leave"
  )
  func ownerReleasedMidDownload() async throws {
    try await withServer { server in
      let owner = Slot(Owner())
      let session = makeCachingSession()
      // 100 MB at 16 KB every 10 ms: a minute in full; a quarter of it, sent after the owner
      // went, is 15 s of slack for a loaded machine under ThreadSanitizer. Typically 2 MB go out
      // after the release, most of it into socket buffers. Counted from the release: a starved
      // test may release the owner late, which says nothing of the cancel.
      let size = 100_000_000
      let url = server.url("/slow?size=\(size)&chunk=16384&interval_ms=10&id=mid")
      let ended = Completion<Data>()
      await onNewThread {
        owner.peek { owner in
          session.dataTask(with: url, in: owner!.cancelBag, completionHandler: ended.handler)
            .resume()
        }
      }
      await server.expectRecord(id: "mid") { $0.bytesSent >= 65_536 }
      let sentAtRelease = server.record(id: "mid")?.bytesSent ?? 0
      _ = owner.take()  // the last reference: the owner's deinit ends its bag
      #expect((await ended.error as? URLError)?.code == .cancelled)
      let record = try #require(await server.expectRecord(id: "mid"))
      let sentAfter = record.bytesSent - sentAtRelease
      print("owner released mid-download: the server sent \(sentAfter) bytes after the release")
      #expect(record.clientWentAway)
      #expect(!record.completed)
      #expect(sentAfter < size / 4)
    }
  }

  @Test(
    "report URLError(.cancelled) once when the bag ends between their making and resume(), and the server finishes nothing"
  )
  func endedBeforeResume() async throws {
    try await withServerAndBag { server, bag in
      let session = makeCachingSession()
      let counter = CallCounter()
      // The server would hold the head for 20 s: a request that got through is cut before it.
      let url = server.url("/delay?ms=20000&size=2048&id=early")
      let (_, _, error) = await completionOnNewThread { done in
        let task = session.dataTask(with: url, in: bag) { data, response, error in
          counter.record(0)
          done(data, response, error)
        }
        bag.end(reason: .custom("signed out"))
        task.resume()  // may come before the bag's cancel, which never runs inline
      }
      #expect((error as? URLError)?.code == .cancelled)
      #expect(error?.isCancellation == true)
      #expect(counter.counts == [0: 1])
      #expect(bag.count == 0)
      if server.record(id: "early") != nil {
        let record = await server.expectRecord(id: "early") { $0.isFinished }
        #expect(record?.clientWentAway == true && record?.bytesSent == 0)
      }
    }
  }

  @Test("report URLError(.cancelled) and send nothing when made in a bag that had ended")
  func taskInEndedBag() async throws {
    try await withServerAndBag { server, bag in
      bag.end(reason: .timedOut)
      try await withEphemeralSession { session in
        for index in 0..<20 {
          let url = server.url("/bytes?size=10&id=ended-\(index)")
          // Read on the thread that made the task, before the helper's call returned to it.
          let cancelledWhenMade = Protected(false)
          let (data, _, error) = await completionOnNewThread { done in
            let task = session.dataTask(with: url, in: bag, completionHandler: done)
            cancelledWhenMade.withLock { $0 = task.state == .canceling || task.state == .completed }
            task.resume()
          }
          #expect(cancelledWhenMade.current, "the task was not cancelled when the helper returned")
          #expect(data == nil)
          #expect((error as? URLError)?.code == .cancelled)
        }
        // A request sent afterwards arrives; none of the cancelled ones did.
        _ = try await session.data(from: server.url("/bytes?size=10&id=after"), in: nil)
        #expect(server.records.map(\.id) == ["after"])
      }
    }
  }

  @Test("send an upload's body and leave the bag")
  func uploadTaskCompletes() async throws {
    try await withServerAndBag { server, bag in
      var post = URLRequest(url: server.url("/upload?id=up"))
      post.httpMethod = "POST"
      let request = post
      let body = Data(repeating: 7, count: 3000)
      let (data, _, error) = await completionOnNewThread { done in
        makeCachingSession().uploadTask(with: request, from: body, in: bag, completionHandler: done)
          .resume()
      }
      #expect(error == nil)
      #expect(data.map { String(decoding: $0, as: UTF8.self) } == "3000")
      #expect(bag.count == 0)
    }
  }

  @Test("hand over a download's file and leave the bag")
  func downloadTaskCompletes() async throws {
    try await withServerAndBag { server, bag in
      let url = server.url("/bytes?size=5000")
      // The file goes when the handler returns: the handler hands on its size.
      let ended = Completion<Int>()
      await onNewThread {
        makeCachingSession().downloadTask(with: url, in: bag) { file, response, error in
          let size = file.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path) }
            .flatMap { $0[.size] as? Int }
          ended.handler(size, response, error)
        }.resume()
      }
      let (size, _, error) = await ended.result
      #expect(error == nil)
      #expect(size == 5000)
      #expect(bag.count == 0)
    }
  }

  @Test(
    "report URLError(.cancelled) when a download is cancelled midway, and the server sees the client leave"
  )
  func downloadCancelled() async throws {
    try await withServerAndBag { server, bag in
      let url = server.longBodyURL(id: "dl")
      let ended = Completion<URL>()
      await onNewThread {
        makeCachingSession().downloadTask(with: url, in: bag, completionHandler: ended.handler)
          .resume()
      }
      await server.expectRecord(id: "dl") { $0.bytesSent >= 65_536 }
      bag.cancelAll(reason: .custom("paused"))
      #expect((await ended.error as? URLError)?.code == .cancelled)
      await server.expectRecord(id: "dl") { $0.clientWentAway }
    }
  }

  /// How a request ends.
  enum Ending: String, TestArgument {
    case completes, cancelledMidTransfer, cancelledBeforeResume
  }

  @Test(
    "call their completion handler on the session's delegate queue, however the request ends",
    arguments: Ending.allCases)
  func handlerRunsOnTheDelegateQueue(ending: Ending) async throws {
    try await withServer { server in
      let queue = OperationQueue()
      queue.maxConcurrentOperationCount = 1
      let delegateQueue = ObjectIdentifier(queue)
      let configuration = URLSessionConfiguration.default
      configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0, diskPath: nil)
      let session = URLSession(configuration: configuration, delegate: nil, delegateQueue: queue)
      defer { session.finishTasksAndInvalidate() }
      let bag = CancelBag()
      let id = "queue-\(ending.rawValue)"
      let url =
        ending == .completes
        ? server.url("/bytes?size=2048&id=\(id)")
        : server.url("/slow?size=10000000&chunk=1024&interval_ms=10&id=\(id)")
      let handlerQueue = Slot<ObjectIdentifier>(nil)
      let ended = Completion<Data>()
      await onNewThread {
        let task = session.dataTask(with: url, in: bag) { data, response, error in
          OperationQueue.current.map { handlerQueue.put(ObjectIdentifier($0)) }
          ended.handler(data, response, error)
        }
        if ending == .cancelledBeforeResume { bag.end() }
        task.resume()
      }
      if ending == .cancelledMidTransfer {
        await server.expectRecord(id: id) { $0.bytesSent > 0 }
        bag.cancelAll()
      }
      let error = await ended.error
      #expect(handlerQueue.take() == delegateQueue, "the handler ran on another queue")
      if ending == .completes {
        #expect(error == nil)
      } else {
        #expect((error as? URLError)?.code == .cancelled)
      }
    }
  }
}
