import AutoCancelTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking

  /// A URL cache whose lookups wait, on a thread of their own as `URLCache`'s do, until the
  /// test lets them answer (with nothing): so that a task stays in the moment between `resume()`
  /// and its cache's answer for as long as a test needs.
  final class HoldingCache: URLCache, @unchecked Sendable {
    // Safety: `answer` and `asked` are thread-safe test kit primitives, set in `init`.
    let answer = Gate()
    let asked = Gate()

    init() {
      super.init(memoryCapacity: 0, diskCapacity: 0, diskPath: nil)
    }

    override func getCachedResponse(
      for dataTask: URLSessionDataTask,
      completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
      let answer = self.answer
      asked.open()
      Thread.detachNewThread {
        answer.wait()
        completionHandler(nil)
      }
    }

    /// Runs `body` with a new holding cache and a session whose data tasks ask it; then lets
    /// the cache answer, so that no lookup outlives the test (a lookup left waiting would
    /// report a failure in another test, once the kit's bound passed), and lets the session go.
    static func withSession<Result>(
      isolation: isolated (any Actor)? = #isolation,
      _ body: (HoldingCache, URLSession) async throws -> Result
    ) async rethrows -> Result {
      let cache = HoldingCache()
      defer { cache.answer.open() }
      let configuration = URLSessionConfiguration.ephemeral
      configuration.urlCache = cache
      let session = URLSession(configuration: configuration)
      defer { session.finishTasksAndInvalidate() }
      return try await body(cache, session)
    }
  }
#endif
