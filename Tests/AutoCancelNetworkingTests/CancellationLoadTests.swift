import AutoCancelNetworking
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The load that crashes raw `cancel()` on a session with a URL cache in most runs on Linux
/// (see the "Cancelling URLSession work" article): fifty concurrent 2 KB requests, half of
/// them cancelled from another thread right after `resume()`, ten rounds.
@Suite("Cancelling under load on sessions with a cache", .timeLimit(.minutes(1)))
struct CancellationLoadTests {
  let server: TestServer

  init() throws {
    server = TestServer()
    try server.start()
  }

  enum Route: String, CaseIterable, Sendable {
    case sharedCacheSession  // default configuration: URLCache.shared, no delegate (twin)
    case delegateSession  // a delegate: the cancel waits for the end of the cache lookup
    case rawTasksInBags  // raw URLSessionTask in a bag (URLSessionTask: AutoCancellable)
  }

  final class Delegate: NSObject, URLSessionDelegate {}

  @Test(
    "neither crashes nor hangs when half the owners go away right after resume()",
    arguments: Route.allCases)
  func halfReleasedRightAfterResume(route: Route) async throws {
    let session =
      route == .delegateSession
      ? URLSession(configuration: .default, delegate: Delegate(), delegateQueue: nil)
      : URLSession(configuration: .default)
    defer { session.finishTasksAndInvalidate() }
    #expect(session.configuration.urlCache != nil)
    let counter = CallCounter()
    let outcomes = CallCounter()  // 0: data, 1: CancelledError(ownerGone) / URLError.cancelled
    let rounds = 10
    let perRound = 50
    var kept: [Owner] = []
    for round in 0..<rounds {
      let (stream, completed) = AsyncStream<Int>.makeStream()
      for index in 0..<perRound {
        let id = round * perRound + index
        let owner = Slot(Owner())
        let url = server.url("/bytes?size=2048&id=load-\(id)")
        let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = {
          data, _, error in
          counter.record(id)
          if data?.count == 2048 {
            outcomes.record(0)
          } else if (error as? CancelledError)?.reason == .ownerGone
            || (error as? URLError)?.code == .cancelled
          {
            outcomes.record(1)
          } else {
            outcomes.record(2)
          }
          completed.yield(id)
        }
        owner.peek { owner in
          let bag = owner!.cancelBag
          switch route {
          case .sharedCacheSession, .delegateSession:
            session.dataTask(with: url, in: bag, completionHandler: handler).resume()
          case .rawTasksInBags:
            let registration = Slot<CancelRegistration>(nil)
            let task = session.dataTask(with: url) { data, response, error in
              registration.take()?.finish()
              handler(data, response, error)
            }
            registration.put(bag.add(task))
            task.resume()
          }
        }
        if index.isMultiple(of: 2) {
          DispatchQueue.global().async { _ = owner.take() }
        } else if let survivor = owner.take() {
          kept.append(survivor)
        }
      }
      let arrived = await collect(perRound, from: stream, watchdog: 20)
      #expect(arrived == perRound, "round \(round): \(arrived) of \(perRound) handlers ran")
      if arrived != perRound { return }
    }
    let counts = counter.counts
    #expect(counts.count == rounds * perRound)
    #expect(counts.values.allSatisfy { $0 == 1 }, "every completion handler ran exactly once")
    #expect(outcomes.counts[2] == nil, "no outcome other than data or a cancellation")
    #expect(kept.allSatisfy { $0.cancelBag.count == 0 }, "completed work left the bags")
    print(
      "route \(route): \(outcomes.counts[0] ?? 0) completed, \(outcomes.counts[1] ?? 0) cancelled")
  }
}
