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
      await HoldingCache.withSession { cache, session in
        let task = await resumedOnNewThread {
          session.dataTask(with: URL(string: "http://127.0.0.1:9/held")!)
        }
        await cache.asked.wait()
        #expect(LookupInspection.answer(for: task) == .pending)
        #expect(LookupInspection.wait(before: task, attempt: 0) != nil)
        cache.answer.open()
        await waitUntil("the lookup settled") { LookupInspection.answer(for: task) == .settled }
        #expect(LookupInspection.wait(before: task, attempt: 0) == nil)
        await onNewThread { task.cancel() }
      }
    }

    @Test(
      "waits on every answer it does not know: a state of another name, fields missing or moved",
      arguments: [nil, "awaitingCacheReply", "toBeCreated", "aStateOfALaterToolchain"])
    func unknownAnswersWait(state: String?) {
      #expect(LookupInspection.answer(forState: state) != .settled)
    }

    @Test("cancels only past the lookup: the task's protocol exists, or was let go")
    func knownAnswersCancel() {
      #expect(LookupInspection.answer(forState: "existing") == .settled)
      #expect(LookupInspection.answer(forState: "invalidated") == .settled)
    }

    @Test("cannot read a task whose fields are not where it found them, and then waits")
    func movedFieldsAreUnreadable() async throws {
      let layout = try #require(LookupInspection.layout)
      let moved = [
        LookupInspection.Layout(
          fieldCount: layout.fieldCount, lock: layout.storage, storage: layout.lock),
        LookupInspection.Layout(
          fieldCount: layout.fieldCount + 1, lock: layout.lock, storage: layout.storage),
      ]
      await withEphemeralSession { session in
        let task = await onNewThread { session.dataTask(with: URL(string: "http://127.0.0.1:9/")!) }
        for layout in moved {
          #expect(LookupInspection.answer(for: task, layout: layout) == .unreadable)
        }
        #expect(LookupInspection.answer(for: task, layout: nil) == .unreadable)
        await onNewThread { task.cancel() }  // never resumed: lets the session go
      }
    }

    @Test("does not run for a download task, which never asks the cache")
    func downloadsNeverLookUp() async {
      await HoldingCache.withSession { _, session in
        let task = await resumedOnNewThread {
          session.downloadTask(with: URL(string: "http://127.0.0.1:9/file")!)
        }
        #expect(LookupInspection.wait(before: task, attempt: 0) == nil)
        await onNewThread { task.cancel() }
      }
    }
  }
#endif
