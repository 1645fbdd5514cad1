import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer
import SeededRandom
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Plain Foundation, without AutoCancel: what an app with a delegate session meets when it
/// cancels tasks while they are being redirected. The control for the library's streams,
/// which run on such a session.
enum RedirectCancelControl {
  /// Hears the tasks' data and ends, as a streaming delegate does; implements no redirect
  /// decision, so Foundation's default one answers.
  final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
    let ended = Protected(0)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {}

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
    ) {
      ended.withLock { $0 += 1 }
    }
  }

  /// In each of `rounds` rounds, starts `count` data tasks to a route that redirects to itself,
  /// on a session with a delegate, and cancels each 0–10 ms (seeded) after its start with
  /// `URLSessionTask.cancel()`; the next round starts once every task has ended. On
  /// FoundationNetworking 6.3.1 the process traps first (`HTTPURLProtocol.swift:705`:
  /// "Received callback for HTTP redirection, but we're not waiting for it"), mostly in the
  /// first round; but on a loaded machine under ThreadSanitizer, runs of 64, and once of 4
  /// rounds of 64, ended without the trap.
  static func run(seed: UInt64, count: Int, rounds: Int) async throws {
    FreshURLCache.prepare()
    let server = LoopbackHTTPServer()
    try server.start()
    defer { server.stop() }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    let delegate = Delegate()
    let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    var generator = SeededGenerator(seed: seed)
    let cancels = DispatchQueue(label: "RedirectCancelControl.cancels", attributes: .concurrent)
    for round in 1...rounds {
      for index in 0..<count {
        let task = session.dataTask(with: server.url("/loop?id=control-\(round)-\(index)"))
        task.resume()
        let delay = generator.within(0...10_000)
        cancels.asyncAfter(deadline: .now() + .microseconds(delay)) { task.cancel() }
      }
      await waitUntil("every task of round \(round) of the control ended") {
        delegate.ended.current == count * round
      }
    }
  }
}
