import AutoCancelTestSupport
import AutoCancel
import Testing

@Suite("AutoCancellable", timeLimit(minutes: 1))
struct AutoCancellableTests {
  @Test("needs only cancel(), which the bag calls whatever the reason")
  func plainWorkNeedsOnlyCancel() {
    let bag = CancelBag()
    let inBag = RecordingPlainWork()
    bag.add(inBag)
    bag.end(reason: .custom("closed"))
    #expect(inBag.cancelCount == 1)
  }

  @Test("hears the reason when it is reason-aware, and defaults cancel() to explicit")
  func reasonAwareWorkHearsTheReason() {
    let bag = CancelBag()
    let probe = RecordingWork()
    bag.add(probe)
    bag.end(reason: .custom("closed"))
    #expect(probe.reasons == [.custom("closed")])
    let direct = ReasonOnly()
    direct.cancel()
    #expect(direct.reasons.current == [.explicit])
  }

  @Test("is adopted by Task: the bag cancels a Task added to it")
  func taskConforms() async {
    let bag = CancelBag()
    let started = Signal()
    let task = Task { () async -> Bool in
      started.fire()
      await suspendUntilCancelled()
      return Task.isCancelled
    }
    bag.add(task)
    await started.wait()
    bag.cancelAll()
    #expect(await task.value)
    #expect(bag.count == 0)
  }

  @Test("is adopted by value types, which the bag boxes once and cancels once")
  func valueTypesConform() {
    let bag = CancelBag()
    let probe = RecordingWork()
    let registration = bag.add(RecordingValueWork(probe))
    #expect(registration.isActive)
    bag.cancelAll(reason: .replaced)
    bag.cancelAll()
    #expect(probe.reasons == [.replaced])
  }
}

/// Work that implements only `cancel(reason:)`.
private final class ReasonOnly: ReasonAwareCancellable {
  let reasons = Protected<[CancellationReason]>([])
  func cancel(reason: CancellationReason) { reasons.withLock { $0.append(reason) } }
}
