import AutoCancelTestSupport
import AutoCancel
import Testing

@Suite("AutoCancellable", .timeLimit(.minutes(1)))
struct AutoCancellableTests {
  @Test("needs only cancel(): the default cancel(reason:) calls it")
  func defaultCancelReasonCallsCancel() {
    let work = PlainWork()
    work.cancel(reason: .timedOut)
    #expect(work.cancelCount == 1)

    let bag = CancelBag()
    let inBag = PlainWork()
    bag.add(inBag)
    bag.end(reason: .custom("closed"))
    #expect(inBag.cancelCount == 1)
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
    let probe = Probe()
    let registration = bag.add(ValueWork(probe: probe))
    #expect(registration.isActive)
    bag.cancelAll(reason: .replaced)
    bag.cancelAll()
    #expect(probe.reasons == [.replaced])
  }
}
