import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Foundation
import LoopbackHTTPServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The loopback server the tests talk to.
typealias TestServer = LoopbackHTTPServer

/// A session with its own in-memory cache, as apps make them.
func makeCachingSession() -> URLSession {
  let configuration = URLSessionConfiguration.default
  configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0, diskPath: nil)
  return URLSession(configuration: configuration)
}

/// What a request's completion handler received, once it has been called: for a test that goes
/// on while the request runs, and awaits its end later.
///
/// ```swift
/// let ended = Completion<Data>()
/// await onNewThread {
///   session.dataTask(with: url, in: bag, completionHandler: ended.handler).resume()
/// }
/// // ...
/// let (data, response, error) = await ended.result
/// ```
final class Completion<First: Sendable>: Sendable {
  typealias Triple = (First?, URLResponse?, (any Error)?)

  private let results: AsyncStream<Triple>
  private let calls = Protected(0)
  /// The completion handler to hand the request: the first call is the result.
  let handler: @Sendable (First?, URLResponse?, (any Error)?) -> Void

  init() {
    let (results, deliver) = AsyncStream<Triple>.makeStream()
    let calls = calls
    self.results = results
    handler = { first, response, error in
      calls.withLock { $0 += 1 }
      deliver.yield((first, response, error))
    }
  }

  /// How many times the handler has been called so far.
  var callCount: Int { calls.current }

  /// What the handler received first; waits for its call. Awaited once.
  var result: Triple {
    get async {
      for await triple in results { return triple }
      return (nil, nil, nil)
    }
  }

  /// The error the handler received first; waits for its call.
  var error: (any Error)? {
    get async { await result.2 }
  }
}

/// Makes a task with `make` and resumes it, on a thread of its own: on Linux both wait for
/// FoundationNetworking's work queue. Returns the task.
func resumedOnNewThread<Made: URLSessionTask>(
  _ make: @escaping @Sendable () -> Made
) async -> Made {
  await onNewThread {
    let task = make()
    task.resume()
    return task
  }
}

/// Makes a data task of `url` on `session`, adds it to `bag` and resumes it, in that order, as
/// code that binds raw tasks does: on a thread of its own, since on Linux each of those calls
/// waits for FoundationNetworking's work queue. Returns the task and its handler's call.
func startRawTask(
  _ url: URL, on session: URLSession, in bag: CancelBag
) async -> (URLSessionDataTask, Completion<Data>) {
  let ended = Completion<Data>()
  let task = await onNewThread {
    let task = session.dataTask(with: url, completionHandler: ended.handler)
    bag.add(task)
    task.resume()
    return task
  }
  return (task, ended)
}

/// Runs `body` with a new ephemeral session, whose delegate is `delegate`, then lets the session
/// go once its tasks have ended.
func withEphemeralSession<Result>(
  isolation: isolated (any Actor)? = #isolation,
  delegate: (any URLSessionDelegate)? = nil,
  _ body: (URLSession) async throws -> Result
) async rethrows -> Result {
  let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
  defer { session.finishTasksAndInvalidate() }
  return try await body(session)
}

/// Runs `body` with a loopback server and a new bag: the start of a test of requests bound to
/// one bag.
func withServerAndBag<Result>(
  isolation: isolated (any Actor)? = #isolation,
  _ body: (LoopbackHTTPServer, CancelBag) async throws -> Result
) async throws -> Result {
  try await withServer { server in try await body(server, CancelBag()) }
}

extension LoopbackHTTPServer {
  /// A body too long to end by itself during a test, tagged `id`: 50 MB, 16 KB every 20 ms,
  /// over a minute in full, so that only a cancel ends it.
  func longBodyURL(id: String) -> URL {
    url("/slow?size=50000000&chunk=16384&interval_ms=20&id=\(id)")
  }

  /// Streams the long body `id` (``longBodyURL(id:)``) through a new session with a cache,
  /// bound to `bag`: a stream that only a cancel ends during a test.
  func streamLongBody(id: String, in bag: CancelBag) async throws -> URLSessionDataStream {
    try await makeCachingSession().stream(for: URLRequest(url: longBodyURL(id: id)), in: bag).0
  }
}

/// Runs `start` on a thread of its own, handing it a completion handler, and returns what that
/// handler received: for a start that makes or resumes a URLSession task, which on Linux waits
/// for FoundationNetworking's work queue and must not hold a thread of the cooperative pool.
func completionOnNewThread<First: Sendable>(
  _ start:
    @escaping @Sendable (@escaping @Sendable (First?, URLResponse?, (any Error)?) -> Void)
    -> Void
) async -> (First?, URLResponse?, (any Error)?) {
  let completion = Completion<First>()
  await onNewThread { start(completion.handler) }
  return await completion.result
}
