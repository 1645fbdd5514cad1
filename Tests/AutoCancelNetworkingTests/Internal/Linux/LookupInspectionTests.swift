#if canImport(FoundationNetworking)
  import AutoCancelTestSupport
  import Foundation
  import FoundationNetworking
  import Testing

  @testable import AutoCancelNetworking

  @Suite("The inspection of a raw task's cache lookup", timeLimit(minutes: 1))
  struct LookupInspectionTests {
    /// The canary: fails on a FoundationNetworking that keeps the state elsewhere, where a raw
    /// task's cancel falls back to waiting for public signs.
    @Test("finds the lookup state on this FoundationNetworking")
    func isAvailable() {
      #expect(LookupInspection.isAvailable)
    }

    @Test("answers pending while the cache has not answered, and settled once it has")
    func pendingUntilTheCacheAnswers() async {
      let cache = HoldingCache()
      let session = cache.makeSession()
      defer { session.finishTasksAndInvalidate() }
      let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/held")!)
      task.resume()
      await cache.asked.wait()
      #expect(LookupInspection.answer(for: task) == .pending)
      #expect(LookupInspection.wait(before: task, attempt: 0) != nil)
      cache.answer.open()
      await waitUntil("the lookup settled") { LookupInspection.answer(for: task) == .settled }
      #expect(LookupInspection.wait(before: task, attempt: 0) == nil)
      task.cancel()
    }

    @Test("does not run for a download task, which never asks the cache")
    func downloadsNeverLookUp() async {
      let cache = HoldingCache()
      let session = cache.makeSession()
      defer { session.finishTasksAndInvalidate() }
      let task = session.downloadTask(with: URL(string: "http://127.0.0.1:9/file")!)
      task.resume()
      #expect(LookupInspection.wait(before: task, attempt: 0) == nil)
      task.cancel()
    }
  }
#endif
