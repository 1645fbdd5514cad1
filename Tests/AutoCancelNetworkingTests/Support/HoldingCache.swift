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

    /// A session whose data tasks ask this cache.
    func makeSession() -> URLSession {
      let configuration = URLSessionConfiguration.ephemeral
      configuration.urlCache = self
      return URLSession(configuration: configuration)
    }
  }
#endif
