import AutoCancel
import AutoCancelTestSupport
import Dispatch
import Foundation
import LoopbackHTTPServer
import Testing

@testable import AutoCancelNetworking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("The library's queues of URLSession calls", timeLimit(minutes: 1))
struct TaskQueueTests {

  /// How the task is bound to its bag.
  enum Binding: String, TestArgument {
    case helper, rawTask
  }

  @Test(
    "never calls URLSessionTask.cancel() inline: the bag's cancel returns, the task still running, while the library's queue is held",
    arguments: Binding.allCases)
  func neverCancelsInline(binding: Binding) async throws {
    try await withServerAndBag { server, bag in
      let session = makeCachingSession()
      defer { session.finishTasksAndInvalidate() }
      let id = "inline-\(binding.rawValue)"
      let url = server.url("/slow?size=10000000&chunk=1024&interval_ms=10&id=\(id)")
      let task = await resumedOnNewThread { () -> URLSessionTask in
        switch binding {
        case .helper:
          return session.dataTask(with: url, in: bag) { _, _, _ in }
        case .rawTask:
          let task = session.dataTask(with: url)
          bag.add(task)
          return task
        }
      }
      await server.expectRecord(id: id) { $0.bytesSent > 0 }
      // Suspend the queues that make the library's cancels: a cancel made there waits, one made
      // inline would not. Suspended and resumed with nothing awaited in between, and no thread
      // blocked: the queues are the process's, and other tests' cancels wait while they are held.
      for lane in TaskQueue.lanes { lane.suspend() }
      bag.cancelAll()
      let stateWhileHeld = task.state
      for lane in TaskQueue.lanes { lane.resume() }
      #expect(stateWhileHeld == .running, "URLSessionTask.cancel() ran on the cancelling thread")
      let record = await server.expectRecord(id: id)
      #expect(record?.clientWentAway == true)
    }
  }

  @Test("makes one request's URLSession calls while another request's call still waits")
  func requestsDoNotWaitForEachOther() async {
    // Objects of requests; two of them whose calls are made on different lanes.
    let requests = (0..<16).map { _ in NSObject() }
    let waiting = requests[0]
    guard
      let other = requests.first(where: {
        TaskQueue.calls(for: $0) !== TaskQueue.calls(for: waiting)
      })
    else {
      Issue.record("sixteen requests all make their calls on one lane")
      return
    }
    let released = Gate()
    let otherCallMade = Gate()
    // A call that waits, as a `cancel()` waits for a busy FoundationNetworking.
    TaskQueue.calls(for: waiting).async { released.wait() }
    TaskQueue.calls(for: other).async { otherCallMade.open() }
    await otherCallMade.wait()
    released.open()
  }
}

#if canImport(FoundationNetworking)
  @Suite("A raw task's cancel, on Linux", timeLimit(minutes: 1))
  struct RawTaskLookupTests {

    @Test("waits to cancel a task while its URL cache has not answered, then cancels it")
    func waitsForThePendingLookup() async throws {
      try await withServerAndBag { server, bag in
        await HoldingCache.withSession { cache, session in
          let url = server.url("/delay?ms=10000&size=100&id=held")
          let (task, ended) = await startRawTask(url, on: session, in: bag)
          await cache.asked.wait()
          bag.cancelAll()
          // The library has looked once: the cache has not answered, so it did not cancel.
          await withCheckedContinuation { done in
            TaskQueue.calls(for: task).async { done.resume() }
          }
          #expect(task.state == .running, "the task was cancelled while its lookup was pending")
          cache.answer.open()
          #expect((await ended.error as? URLError)?.code == .cancelled)
        }
      }
    }
  }
#endif
