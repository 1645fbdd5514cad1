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
  /// The completion handler to hand the request: the first call is the result.
  let handler: @Sendable (First?, URLResponse?, (any Error)?) -> Void

  init() {
    let (results, deliver) = AsyncStream<Triple>.makeStream()
    self.results = results
    handler = { first, response, error in deliver.yield((first, response, error)) }
  }

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
