#if canImport(FoundationNetworking)
  import AutoCancelTestSupport
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import AutoCancelNetworking

  @Suite("The cache lookup state of a task", timeLimit(minutes: 1))
  struct CacheLookupTests {
    @Test("is read on this FoundationNetworking: a task not resumed yet is settled, not unknown")
    func stateIsFound() {
      let session = URLSession(configuration: .default)
      let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/never")!)
      #expect(CacheLookup.state(of: task) == .settled)
      task.cancel()  // never resumed: completes at once, and lets the session go
      session.finishTasksAndInvalidate()
    }

    @Test("is pending while the cache has not answered, and settled once it has")
    func pendingUntilTheCacheAnswers() async {
      let cache = HoldingCache()
      let session = cache.makeSession()
      defer { session.finishTasksAndInvalidate() }
      let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/held")!)
      task.resume()
      await cache.asked.wait()
      #expect(CacheLookup.state(of: task) == .pending)
      cache.answer.open()
      await waitUntil("the lookup settled") { CacheLookup.state(of: task) == .settled }
      task.cancel()
    }

    @Test("is settled for a download task, which never asks the cache")
    func downloadsNeverLookUp() async {
      let cache = HoldingCache()
      let session = cache.makeSession()
      defer { session.finishTasksAndInvalidate() }
      let task = session.downloadTask(with: URL(string: "http://127.0.0.1:9/file")!)
      task.resume()
      #expect(CacheLookup.state(of: task) == .settled)
      task.cancel()
    }
  }
#endif
