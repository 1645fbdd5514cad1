import AutoCancelTestSupport
import AutoCancel
import AutoCancelDiagnostics
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

  @Test("hears the reason when it is reason-aware")
  func reasonAwareWorkHearsTheReason() {
    let (bag, probe, _) = bagHoldingWork()
    bag.end(reason: .custom("closed"))
    #expect(probe.reasons == [.custom("closed")])
  }

  @Test("defaults cancel() to the reason explicit when it implements only cancel(reason:)")
  func reasonAwareCancelDefaultsToExplicit() {
    let direct = ReasonOnly()
    direct.cancel()
    #expect(direct.reasons.current == [.explicit])
  }

  @Test("is adopted by Task: the bag cancels a Task added to it")
  func taskConforms() async {
    let bag = CancelBag()
    let started = Gate()
    let task = Task { () async -> Bool in
      started.open()
      await suspendUntilCancelled()
      return Task.isCancelled
    }
    bag.add(task)
    await started.wait()
    bag.cancelAll()
    #expect(await task.value)
    #expect(bag.count == 0)
  }

  @Test(
    "watches an added Task at utility priority: a background task added from above it is raised to utility, and no higher"
  )
  func taskWatcherRunsAtUtility() async {
    let bag = CancelBag()
    let priority = Protected<TaskPriority?>(nil)
    let done = Gate()
    // Reads its own priority until the test has seen what it waited for: only the watcher
    // awaits it, so only the watcher can raise it.
    let task = Task.detached(priority: .background) {
      while !done.hasOpened {
        let current = Task.currentPriority
        priority.withLock { $0 = current }
        try? await Task.sleep(nanoseconds: 1_000_000)
      }
    }
    // Added from code above utility.
    await Task.detached(priority: .userInitiated) { _ = bag.add(task) }.value
    await waitUntil("the watcher raised the task to utility") { priority.current == .utility }
    done.open()
    await task.value
    #expect(priority.current == .utility)
    await waitUntil("the task left the bag") { bag.count == 0 }
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

  @Test(
    "leaves by itself, or stays, for what the work is, however the call site typed it",
    arguments: CallForm.allCases)
  func callSiteDoesNotDecide(site: CallForm) async {
    let owner = ModelOwner()
    let finishing = RecordingFinishingWork()
    let finishingValue = FinishingValue(RecordingFinishingWork())
    let task = Task {}
    let plain = RecordingWork()
    switch site {
    case .concrete:
      owner.autoCancel(finishing)
      owner.autoCancel(finishingValue)
      owner.autoCancel(task)
      owner.autoCancel(plain)
    case .generic:
      for work in [finishing, finishingValue, task, plain] as [any AutoCancellable] {
        bindGenerically(work, to: owner)
      }
    case .existential:
      for work in [finishing, finishingValue, task, plain] as [any AutoCancellable] {
        owner.cancelBag.add(work)
      }
    }
    finishing.complete()
    finishingValue.work.complete()
    await task.value
    await waitUntil("only the plain work is left") { owner.cancelBag.count == 1 }
    #expect(owner.cancelBag.snapshot().map(\.workType) == ["RecordingWork"])
    owner.cancelBag.cancelAll()
    #expect(plain.cancelCount == 1)
    #expect(finishing.cancelCount == 0)
  }
}

/// How a call site reaches `autoCancel`: with the work's own type, through a generic
/// parameter, or as `any AutoCancellable`.
enum CallForm: String, CaseIterable, Sendable {
  case concrete, generic, existential
}

/// A user's generic helper around the one-liner.
private func bindGenerically<Work: AutoCancellable>(_ work: Work, to owner: some AutoCancelOwner) {
  owner.autoCancel(work)
}

/// A value type that reports its finish.
private struct FinishingValue: FinishReporting {
  let work: RecordingFinishingWork
  init(_ work: RecordingFinishingWork) { self.work = work }
  var isFinished: Bool { work.isFinished }
  func cancel() { work.cancel() }
}

/// Work that implements only `cancel(reason:)`.
private final class ReasonOnly: ReasonAwareCancellable {
  let reasons = Protected<[CancellationReason]>([])
  func cancel(reason: CancellationReason) { reasons.withLock { $0.append(reason) } }
}
