import AutoCancel
import AutoCancelNetworking
import Foundation
import LoopbackHTTPServer
import AutoCancelTestSupport
import SeededRandom
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The load that crashes raw `cancel()` on a session with a URL cache in most runs on Linux
/// (see the "Cancelling URLSession work" article): fifty concurrent 2 KB requests, half of
/// them cancelled from another thread right after `resume()`, ten rounds.
///
/// One load at a time: every request of them waits for FoundationNetworking's one work queue,
/// and three at once under ThreadSanitizer, beside the other suites, took 43 to 70 s of the
/// one-minute limit that each of them takes about 5 s of alone.
@Suite("Requests under load on sessions with a cache", .serialized, timeLimit(minutes: 1))
struct CancellationLoadTests {

  enum Route: String, CaseIterable, Sendable {
    case sharedCacheSession  // default configuration: URLCache.shared, no delegate (twin)
    case delegateSession  // a delegate: the cancel waits for the end of the cache lookup
    case rawTasksInBags  // raw URLSessionTask in a bag (URLSessionTask: AutoCancellable)
  }

  final class Delegate: NSObject, URLSessionDelegate {}

  /// How a request ended: tallied by its raw value.
  enum Outcome: Int {
    case answered, cancelled, other

    init(answered: Bool, error: (any Error)?) {
      if answered {
        self = .answered
      } else if (error as? URLError)?.code == .cancelled {
        self = .cancelled
      } else {
        self = .other
      }
    }
  }

  @Test(
    "neither crash nor hang when half the owners go away right after resume()",
    arguments: Route.allCases)
  func halfReleasedRightAfterResume(route: Route) async throws {
    try await withServer { server in
      let session =
        route == .delegateSession
        ? URLSession(configuration: .default, delegate: Delegate(), delegateQueue: nil)
        : URLSession(configuration: .default)
      defer { session.finishTasksAndInvalidate() }
      #expect(session.configuration.urlCache != nil)
      let counter = CallCounter()
      let outcomes = CallCounter()  // by Outcome
      let rounds = 10
      let perRound = 50
      var kept: [Owner] = []
      for round in 0..<rounds {
        let (stream, completed) = AsyncStream<Int>.makeStream()
        // The round's burst, made on a thread of its own: URLSession's calls wait on Linux.
        kept += await onNewThread {
          var survivors: [Owner] = []
          for index in 0..<perRound {
            let id = round * perRound + index
            let owner = Slot(Owner())
            let url = server.url("/bytes?size=2048&id=load-\(id)")
            let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = {
              data, _, error in
              counter.record(id)
              outcomes.record(Outcome(answered: data?.count == 2048, error: error).rawValue)
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
              survivors.append(survivor)
            }
          }
          return survivors
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
        "route \(route): \(outcomes.counts[0] ?? 0) completed, \(outcomes.counts[1] ?? 0) cancelled"
      )
    }
  }

  /// One phase of the mixed load: `owners` owners, `perOwner` requests each (callback data,
  /// async data, a slow download cut mid-way, a download task), each owner released at a
  /// seeded moment: right away from another thread, inside one of its completion handlers,
  /// or never. Returns after every completion arrived (or the watchdog fired).
  func mixedLoad(
    server: LoopbackHTTPServer, session: URLSession, owners: Int, perOwner: Int, phase: Int,
    generator: inout SeededGenerator, counter: CallCounter
  ) async -> (arrived: Int, expected: Int, kept: [Owner]) {
    let (stream, completed) = AsyncStream<Int>.makeStream()
    // Drawn here, the requests made on a thread of their own: URLSession's calls wait on Linux.
    let plan = (0..<owners).map { _ in
      (
        release: Int.random(in: 0..<3, using: &generator),  // 0 now, 1 in a handler, 2 never
        releaseAfter: Int.random(in: 0..<perOwner, using: &generator)
      )
    }
    let kept = await onNewThread {
      var kept: [Owner] = []
      for (ownerIndex, (release, releaseAfter)) in plan.enumerated() {
        let owner = Slot(Owner())
        // Borrowed for the loop only; a handler may release the owner before the loop ends.
        let bag = owner.peek { $0!.cancelBag }
        for requestIndex in 0..<perOwner {
          let id = (phase * owners + ownerIndex) * perOwner + requestIndex
          let finished: @Sendable () -> Void = {
            counter.record(id)
            if release == 1, requestIndex == releaseAfter { _ = owner.take() }
            completed.yield(id)
          }
          switch requestIndex % 4 {
          case 0:
            session.dataTask(with: server.url("/bytes?size=2048"), in: bag) { _, _, _ in
              finished()
            }.resume()
          case 1:
            let url = server.url("/bytes?size=4096")
            bag.task {
              _ = try? await session.data(from: url, in: nil)
              finished()
            }
          case 2:
            let url = server.url("/slow?size=400000&chunk=16384&interval_ms=1")
            session.dataTask(with: url, in: bag) { _, _, _ in finished() }.resume()
          default:
            session.downloadTask(with: server.url("/bytes?size=3000"), in: bag) { _, _, _ in
              finished()
            }.resume()
          }
        }
        if release == 0 {
          DispatchQueue.global().async { _ = owner.take() }
        } else if release == 2, let survivor = owner.take() {
          kept.append(survivor)
        }
      }
      return kept
    }
    let expected = owners * perOwner
    return (await collect(expected, from: stream, watchdog: 30), expected, kept)
  }

  @Test(
    "complete once each, hundreds across dozens of owners, leaking no descriptors",
    arguments: TestSeed.fresh(count: 1))
  func dozensOfOwners(seed: UInt64) async throws {
    try await withServer { server in
      print("dozensOfOwners: \(TestSeed.describe(seed))")
      var generator = SeededGenerator(seed: seed)
      let session = URLSession(configuration: .default)  // URLCache.shared, no delegate
      defer { session.finishTasksAndInvalidate() }
      let counter = CallCounter()
      var expected = 0
      var kept: [Owner] = []
      var descriptors: [Int] = []  // after each phase
      for phase in 0..<2 {
        let load = await mixedLoad(
          server: server, session: session, owners: 24, perOwner: 8, phase: phase,
          generator: &generator, counter: counter)
        #expect(
          load.arrived == load.expected,
          "\(TestSeed.describe(seed)): watchdog fired in phase \(phase)")
        expected += load.expected
        kept += load.kept
        descriptors.append(try openFileDescriptorCount())
      }
      print("dozensOfOwners: \(expected) requests, descriptors after each phase: \(descriptors)")
      let counts = counter.counts
      #expect(counts.count == expected, "\(TestSeed.describe(seed))")
      #expect(
        counts.values.allSatisfy { $0 == 1 }, "\(TestSeed.describe(seed)): a handler ran twice")
      // A leak grows with the requests (192 per phase); the connection pool does not.
      #expect(
        descriptors[1] - descriptors[0] < 24,
        "\(TestSeed.describe(seed)): \(descriptors[0]) → \(descriptors[1]) descriptors")
      #expect(kept.allSatisfy { $0.cancelBag.count == 0 })
    }
  }

  /// The kinds of session a raw task is made on: each has a URL cache its data tasks ask.
  enum SessionKind: String, CaseIterable, Sendable {
    case shared, `default`, ephemeral
  }

  /// Cancels racing completion per session kind: `AUTOCANCEL_CANCEL_RACES`, else 120 (1,000
  /// in the soak run, `scripts/reliability/cancel-races.sh`).
  static let racesPerKind =
    ProcessInfo.processInfo.environment["AUTOCANCEL_CANCEL_RACES"].flatMap { Int($0) } ?? 120

  @Test(
    "neither crash nor hang when raw tasks' owners go at seeded moments racing their completion, cached answers included",
    arguments: SessionKind.allCases)
  func rawTasksRaceTheirCompletion(kind: SessionKind) async throws {
    try await withServer { server in
      let seed = TestSeed.fresh()
      var random = SeededGenerator(seed: seed)
      let context = "\(kind.rawValue), \(TestSeed.describe(seed))"
      let session: URLSession
      switch kind {
      case .shared: session = URLSession.shared
      case .default: session = URLSession(configuration: .default)
      case .ephemeral: session = URLSession(configuration: .ephemeral)
      }
      // A stored answer for /cached: tasks there complete from the cache, in microseconds.
      let cachedURL = server.url("/cached")
      let cachedResponse = HTTPURLResponse(
        url: cachedURL, statusCode: 200, httpVersion: "HTTP/1.1",
        headerFields: ["Cache-Control": "max-age=3600", "Content-Length": "4"])!
      // Written on a thread of its own: the disk cache's write blocks on file I/O.
      await onNewThread { [session] in
        session.configuration.urlCache?.storeCachedResponse(
          CachedURLResponse(response: cachedResponse, data: Data("hit!".utf8)),
          for: URLRequest(url: cachedURL))
      }
      let calls = CallCounter()
      let outcomes = CallCounter()  // by Outcome
      let (stream, completed) = AsyncStream<Int>.makeStream()
      let count = Self.racesPerKind
      // Drawn here, the tasks made on a thread of their own: URLSession's calls wait on Linux.
      let plan = (0..<count).map { _ in
        let url: URL
        switch random.below(3) {
        case 0: url = cachedURL
        case 1: url = server.url("/bytes?size=\(random.below(4000) + 1)")
        default: url = server.url("/slow?size=20000&chunk=1000&interval_ms=1")  // about 20 ms
        }
        let bindFirst = random.chance(50)
        let delay = random.below(30)  // 0: release at once; else after that many milliseconds
        return (url: url, bindFirst: bindFirst, delay: delay)
      }
      await onNewThread {
        for (id, (url, bindFirst, delay)) in plan.enumerated() {
          let owner = Slot(Owner())
          owner.peek { owner in
            let task = session.dataTask(with: url) { _, response, error in
              calls.record(id)
              outcomes.record(
                Outcome(answered: error == nil && response != nil, error: error).rawValue)
              completed.yield(id)
            }
            if bindFirst { owner!.autoCancel(task) }
            task.resume()
            if !bindFirst { owner!.autoCancel(task) }
          }
          if delay == 0 {
            DispatchQueue.global().async { _ = owner.take() }
          } else {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) {
              _ = owner.take()
            }
          }
        }
      }
      let arrived = await collect(count, from: stream, watchdog: 60)
      #expect(arrived == count, "\(context): \(arrived) of \(count) handlers ran")
      #expect(calls.counts.values.allSatisfy { $0 == 1 }, "\(context): a handler ran twice")
      #expect(outcomes.counts[2] == nil, "\(context): an outcome other than an answer or a cancel")
      // The session survived every cancel.
      let after = server.url("/bytes?size=32")
      let (data, _, error) = await completionOnNewThread { handler in
        session.dataTask(with: after, completionHandler: handler).resume()
      }
      #expect(error == nil && data?.count == 32, "\(context)")
      print(
        "cancel races, \(context): \(outcomes.counts[0] ?? 0) answered, "
          + "\(outcomes.counts[1] ?? 0) cancelled")
      // The stored answer goes with the test: a disk cache that keeps every run's answers
      // makes every later lookup slower (see `FreshURLCache`).
      await onNewThread { [session] in
        session.configuration.urlCache?.removeCachedResponse(for: URLRequest(url: cachedURL))
      }
      if kind != .shared { session.finishTasksAndInvalidate() }
    }
  }
}
