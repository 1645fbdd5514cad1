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

/// Runs `start`, handing it a completion handler, and returns what that handler received.
func completion<First: Sendable>(
  _ start: (@escaping @Sendable (First?, URLResponse?, (any Error)?) -> Void) -> Void
) async -> (First?, URLResponse?, (any Error)?) {
  await withCheckedContinuation { continuation in
    start { first, response, error in continuation.resume(returning: (first, response, error)) }
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
  let (results, deliver) = AsyncStream<(First?, URLResponse?, (any Error)?)>.makeStream()
  await onNewThread { start { first, response, error in deliver.yield((first, response, error)) } }
  var iterator = results.makeAsyncIterator()
  return await iterator.next() ?? (nil, nil, nil)
}
