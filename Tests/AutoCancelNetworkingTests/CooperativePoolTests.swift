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

/// The library never waits for URLSession on a thread of Swift's cooperative pool: an awaiting
/// request's task is made and resumed on the library's own queue, so a pool whose every thread
/// is busy does not hold requests back.
@Suite("Requests while the cooperative pool is busy", timeLimit(minutes: 1))
struct CooperativePoolTests {
  /// Starts `count` async requests, which suspend with their tasks not made yet (the
  /// library's queue held); then takes every thread of the cooperative pool with work that
  /// blocks; then lets the library's queue go, from a thread of its own, and returns whether
  /// the server saw every request before the pool was given back.
  static func requestsReachTheServerWhileThePoolIsHeld(count: Int) async throws -> Bool {
    FreshURLCache.prepare()
    let server = LoopbackHTTPServer()
    try server.start()
    let session = URLSession(configuration: .default)
    let width = ProcessInfo.processInfo.activeProcessorCount
    let started = Protected(0)
    let holding = Protected(0)
    let release = DispatchSemaphore(value: 0)
    TaskQueue.queue.suspend()
    let requests = (0..<count).map { index in
      Task {
        started.withLock { $0 += 1 }
        _ = try? await session.data(from: server.url("/bytes?size=10&id=pool-\(index)"), in: nil)
      }
    }
    // Enqueued after the requests: a blocker runs only on a thread that no request holds.
    let blockers = (0..<width).map { _ in
      Task.detached {
        holding.withLock { $0 += 1 }
        release.wait()
      }
    }
    let seen: Bool = await withCheckedContinuation { done in
      Thread.detachNewThread {
        // Every request has started, and every thread of the pool is held: each request
        // has suspended, its task not made.
        let deadline = Date() + 20
        while started.current < count || holding.current < width, Date() < deadline {
          usleep(1000)
        }
        TaskQueue.queue.resume()
        var seen = false
        while !seen, Date() < deadline {
          seen = (0..<count).allSatisfy { server.record(id: "pool-\($0)") != nil }
          if !seen { usleep(1000) }
        }
        for _ in 0..<width { release.signal() }
        done.resume(returning: seen && holding.current == width)
      }
    }
    for blocker in blockers { await blocker.value }
    for request in requests { await request.value }
    session.finishTasksAndInvalidate()
    await server.stop()
    return seen
  }

  // An exit test (Swift Testing 6.2): the child holds its own pool, not the other tests'.
  #if compiler(>=6.2) && (os(Linux) || os(macOS) || os(Windows))
    @Test(
      "reach the server, measured there, while every thread of the cooperative pool is held")
    func requestsReachTheServer() async {
      let errors = ChildStandardError("pool-held")
      let result = await offThePool {
        await #expect(processExitsWith: .success) {
          closeInheritedSockets()
          ChildStandardError("pool-held").sendToParent()
          guard try await CooperativePoolTests.requestsReachTheServerWhileThePoolIsHeld(count: 8)
          else { exit(1) }
        }
      }
      errors.recordIfFailed(result)
    }
  #endif
}
