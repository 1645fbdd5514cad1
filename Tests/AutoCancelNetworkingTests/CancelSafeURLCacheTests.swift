import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("CancelSafeURLCache", timeLimit(minutes: 1))
struct CancelSafeURLCacheTests {
  func sample(_ url: URL) -> (URLRequest, CachedURLResponse) {
    let response = HTTPURLResponse(
      url: url, statusCode: 200, httpVersion: "HTTP/1.1",
      headerFields: ["Cache-Control": "max-age=60"])!
    return (URLRequest(url: url), CachedURLResponse(response: response, data: Data("hi".utf8)))
  }

  // URLCache may store and remove in the background (Apple's does): the tests wait for the
  // wrapped cache to show a write before they read it back.

  @Test("stores in and reads from the cache it wraps")
  func forwards() async {
    let base = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
    let cache = CancelSafeURLCache(wrapping: base)
    let (request, cached) = sample(URL(string: "http://127.0.0.1:1/a")!)
    cache.storeCachedResponse(cached, for: request)
    await waitUntil("the wrapped cache holds the stored response") {
      base.cachedResponse(for: request)?.data == Data("hi".utf8)
    }
    #expect(cache.cachedResponse(for: request)?.data == Data("hi".utf8))
    cache.removeCachedResponse(for: request)
    await waitUntil("the wrapped cache no longer holds the removed response") {
      base.cachedResponse(for: request) == nil
    }
  }

  @Test("answers a data task's lookup before returning")
  func answersSynchronously() async {
    let base = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
    let cache = CancelSafeURLCache(wrapping: base)
    let url = URL(string: "http://127.0.0.1:1/b")!
    let (request, cached) = sample(url)
    base.storeCachedResponse(cached, for: request)
    await waitUntil("the wrapped cache holds the stored response") {
      base.cachedResponse(for: request) != nil
    }
    let task = await onNewThread { URLSession(configuration: .ephemeral).dataTask(with: request) }
    let answer = Slot<Data>(nil)
    cache.getCachedResponse(for: task) { response in
      if let data = response?.data { answer.put(data) }
    }
    #expect(answer.take() == Data("hi".utf8))
    // A task never resumed nor cancelled stays in its session's registry, and keeps the
    // session alive, for ever.
    await onNewThread { task.cancel() }
  }
}
