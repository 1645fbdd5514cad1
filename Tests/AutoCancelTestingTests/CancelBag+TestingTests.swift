import AutoCancel
import AutoCancelDiagnostics
import AutoCancelTestSupport
import AutoCancelTesting
import Testing

@Suite("Waiting until a bag is idle", timeLimit(minutes: 1))
struct CancelBagWaitUntilIdleTests {
  @Test("returns true at once for a bag that holds nothing")
  func emptyBagIsIdle() async {
    let bag = CancelBag()
    #expect(await bag.waitUntilIdle(timeout: 0))
    bag.end()
    #expect(await bag.waitUntilIdle(timeout: 0))
  }

  @Test("returns true once the last task returns")
  func idleOnceTasksReturn() async {
    let bag = CancelBag()
    let release = Gate()
    for _ in 0..<3 { bag.task { await release.wait() } }
    let task = Task { await bag.waitUntilIdle(timeout: waitBound) }
    release.open()
    #expect(await task.value)
    #expect(bag.count == 0)
  }

  @Test("returns true when the bag cancels its work")
  func idleOnceCancelled() async {
    let (bag, waiting) = waitingOnABagWithWork(timeout: waitBound)
    // Whether the waiter already observes or not, the answer is the same.
    bag.cancelAll()
    #expect(await waiting.value)
  }

  @Test("returns false when the timeout passes with work still held")
  func timesOut() async {
    let bag = CancelBag()
    bag.add(RecordingWork(), label: "stuck")
    #expect(await bag.waitUntilIdle(timeout: 0.05) == false)
    #expect(bag.count == 1)
  }

  @Test("returns false when the waiting task is cancelled")
  func cancelledWait() async {
    // An hour, far past the time limit: only the cancellation can end this wait in time.
    let (bag, waiting) = waitingOnABagWithWork(timeout: 3_600)
    waiting.cancel()
    #expect(await waiting.value == false)
    #expect(bag.count == 1)
  }

  /// A bag that holds one piece of work, and a task waiting up to `timeout` seconds until the
  /// bag is idle.
  private func waitingOnABagWithWork(
    timeout: Double
  ) -> (bag: CancelBag, waiting: Task<Bool, Never>) {
    let bag = CancelBag()
    bag.add(RecordingWork())
    return (bag, Task { await bag.waitUntilIdle(timeout: timeout) })
  }
}

@Suite("The message of work in flight")
struct CancelBagWorkInFlightMessageTests {
  @Test("is nil when the bag holds nothing")
  func nilWhenEmpty() {
    let bag = CancelBag()
    #expect(bag.workInFlightMessage() == nil)
    bag.add(RecordingWork()).finish()
    #expect(bag.workInFlightMessage() == nil)
  }

  @Test("names the bag and each item still held, oldest first")
  func namesEachItem() {
    let bag = CancelBag(label: "Feed", switches: DiagnosticSwitches())
    bag.add(RecordingWork(), label: "feed")
    bag.add(RecordingWork())
    let message = bag.workInFlightMessage() ?? ""
    #expect(message.hasPrefix("CancelBag(Feed) still holds 2 items: #1 feed (RecordingWork), "))
    #expect(message.hasSuffix(", #2 (RecordingWork)"))
  }

  @Test("says where each item still held was added, while its bag keeps call sites")
  func namesEachCallSite() {
    let bag = CancelBag(label: "Feed", switches: DiagnosticSwitches(keepsCallSites: true))
    let line = #line + 1
    bag.add(RecordingWork(), label: "feed")
    bag.add(RecordingWork())
    let message = bag.workInFlightMessage() ?? ""
    print(message)
    #expect(
      message.hasPrefix(
        "CancelBag(Feed) still holds 2 items: #1 feed (RecordingWork) added at "
          + "CancelBag+TestingTests.swift:\(line), "))
    #expect(
      message.hasSuffix(", #2 (RecordingWork) added at CancelBag+TestingTests.swift:\(line + 1)"))
  }

  @Test("fails a test's expectation while work is held")
  func failsAnExpectation() {
    let bag = CancelBag()
    bag.add(RecordingWork(), label: "avatar")
    withKnownIssue("the bag still holds the avatar") {
      #expect(bag.workInFlightMessage() == nil)
    }
  }
}
