import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import SeededRandom
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The library's requests in the race that ends plain Foundation (the control in the fault
/// suite): cancels made while a delegate decides redirects. Each run goes in a process of its
/// own, so that a trap fails this test and nothing else.
@Suite("Requests cancelled while they are redirected", timeLimit(minutes: 2))
struct RedirectRaceTests {
  /// A caller's delegate that decides redirects (by Foundation's default) and hears nothing
  /// else.
  final class CallerDelegate: NSObject, URLSessionDataDelegate, Sendable {}

  /// `count` requests of one form to a route that redirects to itself, each cancelled through
  /// its bag 0–10 ms (seeded) after its start; returns once every one has ended.
  static func race(form: String, seed: UInt64, count: Int) async throws {
    FreshURLCache.prepare()
    let server = LoopbackHTTPServer()
    try server.start()
    defer { server.stop() }
    let session = URLSession(
      configuration: .ephemeral, delegate: CallerDelegate(), delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    var random = SeededGenerator(seed: seed)
    let ended = Protected(0)
    for index in 0..<count {
      let bag = CancelBag()
      let url = server.url("/loop?id=\(form)-\(index)")
      if form == "stream" {
        bag.task {
          _ = try? await session.stream(for: URLRequest(url: url), in: nil)
          ended.withLock { $0 += 1 }
        }
      } else {
        session.dataTask(with: url, in: bag) { _, _, _ in ended.withLock { $0 += 1 } }.resume()
      }
      let delay = random.within(0...10_000)
      DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(delay)) {
        bag.cancelAll()
      }
    }
    let done = await waitUntil("every request ended") { ended.current == count }
    if !done { exit(2) }
    // The connections closed: nothing of the library's is still winding down at exit.
    _ = await server.waitForConnections(timeout: waitBound) { $0.open == 0 }
  }

  // The exit test passes its arguments through a capture list (Swift Testing 6.3).
  #if compiler(>=6.3) && canImport(FoundationNetworking) && (os(Linux) || os(Windows))
    @Test(
      "survive where plain Foundation traps: 64 requests to a redirect loop on a session whose delegate decides redirects, each cancelled 0–10 ms after its start",
      arguments: ["stream", "data"], TestSeed.fresh(count: 2))
    func survive(form: String, seed: UInt64) async {
      print("redirect race, \(form): \(TestSeed.describe(seed))")
      let errors = ChildStandardError("redirect-race-\(form)-\(seed)")
      let result = await offThePool {
        await #expect(processExitsWith: .success, "\(form), \(TestSeed.describe(seed))") {
          [form = form as String, seed = seed as UInt64] in
          closeInheritedSockets()
          ChildStandardError("redirect-race-\(form)-\(seed)").sendToParent()
          try await RedirectRaceTests.race(form: form, seed: seed, count: 64)
        }
      }
      errors.recordIfFailed(result)
    }
  #endif

  @Test("end a redirect loop as Foundation does: URLError(.httpTooManyRedirects)")
  func loopEnds() async throws {
    try await withServer { server in
      await withEphemeralSession { session in
        let bag = CancelBag()
        let url = server.url("/loop")
        await #expect {
          _ = try await session.stream(for: URLRequest(url: url), in: bag)
        } throws: { ($0 as? URLError)?.code == .httpTooManyRedirects }
        let (_, _, error) = await completionOnNewThread { handler in
          session.dataTask(with: url, in: bag, completionHandler: handler).resume()
        }
        #expect((error as? URLError)?.code == .httpTooManyRedirects)
      }
    }
  }
}
