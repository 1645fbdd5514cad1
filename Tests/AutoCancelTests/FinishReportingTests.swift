import AutoCancelTestSupport
import Dispatch
import Testing

@testable import AutoCancel
import AutoCancelDiagnostics

/// A user's own request type that says when it is done.
private final class ImageRequest: FinishReporting, Sendable {
  let payload: Payload
  private let state = Protected((finished: false, cancels: 0, asks: 0))

  init(payload: Payload = Payload()) { self.payload = payload }

  func complete() { state.withLock { $0.finished = true } }
  func cancel() { state.withLock { $0.cancels += 1 } }

  var isFinished: Bool {
    state.withLock { state in
      state.asks += 1
      return state.finished
    }
  }

  var cancelCount: Int { state.withLock { $0.cancels } }
  var askCount: Int { state.withLock { $0.asks } }
}

/// A request whose `isFinished` holds the sweep that asks it until the test lets it go.
private final class HeldRequest: FinishReporting, Sendable {
  /// Fires when a sweep first asks.
  let asked = Gate()
  /// Lets the sweep's question return.
  let answer = Gate()
  private let finished = Protected(false)

  func complete() { finished.withLock { $0 = true } }
  func cancel() {}

  var isFinished: Bool {
    asked.open()
    answer.wait()
    return finished.current
  }
}

/// A user's request class that conforms to `AutoCancellable`, and a subclass of it that says
/// when it is done: the subclass declares `FinishReporting` apart from `AutoCancellable`.
private class APIRequest: AutoCancellable, @unchecked Sendable {
  // Safety: the only state is `state`, a lock-protected box that never changes.
  let state = Protected((completed: false, cancels: 0))

  func cancel() { state.withLock { $0.cancels += 1 } }
  var cancelCount: Int { state.current.cancels }
}

private final class Upload: APIRequest, FinishReporting, @unchecked Sendable {
  // Safety: no state of its own; see `APIRequest`.
  func complete() { state.withLock { $0.completed = true } }
  var isFinished: Bool { state.current.completed }
}

/// A generic wrapper that is `FinishReporting` when the work it wraps is.
private struct Logged<Wrapped: AutoCancellable>: AutoCancellable {
  let work: Wrapped
  func cancel() { work.cancel() }
}

extension Logged: FinishReporting where Wrapped: FinishReporting {
  var isFinished: Bool { work.isFinished }
}

/// A user's generic helper around `add`.
private func addGenerically<Work: AutoCancellable>(_ work: Work, to bag: CancelBag) {
  bag.add(work)
}

/// Something a piece of work holds, to see whether finished work is freed.
private final class Payload: Sendable {}

private final class WeakPayload {
  weak var payload: Payload?
  init(_ payload: Payload) { self.payload = payload }
}

/// A long-lived owner that binds work with the one-liner, as an upload manager does.
private final class Uploader: AutoCancelOwner, Sendable {
  let cancelBag = CancelBag(label: "Uploader")

  /// The documented pattern: the task captures what it needs, never the owner.
  @discardableResult
  func startUpload(_ payload: Payload) -> Task<Void, Never> {
    let task = Task { [payload] in _ = payload }
    autoCancel(task)
    return task
  }

  func send(_ request: ImageRequest) {
    autoCancel(request)
  }
}

/// `FinishReporting` declared here, for a type whose `AutoCancellable` conformance lives in the
/// test kit's module.
extension ForeignRequest: FinishReporting {
  /// Whether the request completed.
  public var isFinished: Bool { hasCompleted }
}

@Suite("Work bound with the one-liner", timeLimit(minutes: 3))
struct FinishReportingTests {
  @Test("leaves a long-lived owner by itself: 100,000 tasks, one after another, leave no trace")
  func finishedTasksLeave() async {
    let uploader = Uploader()
    var weakPayloads: [WeakPayload] = []
    weakPayloads.reserveCapacity(100_000)
    for _ in 0..<100_000 {
      let payload = Payload()
      weakPayloads.append(WeakPayload(payload))
      await uploader.startUpload(payload).value
    }
    await waitUntil("every finished task left the bag") { uploader.cancelBag.count == 0 }
    #expect(uploader.cancelBag.slotCount <= 64)
    let alive = weakPayloads.count { $0.payload != nil }
    #expect(alive == 0)
  }

  @Test(
    "leaves a long-lived owner as it binds more: 100,000 user requests keep at most a few dozen, by the sweeps on add alone"
  )
  func finishedRequestsLeave() async {
    // Seconds of CPU under a sanitizer: on a thread of its own, not the cooperative pool's.
    let (largest, held, alive) = await onNewThread {
      let uploader = Uploader()
      // The bound is the sweeps' on add; the reaper, running beside them, would hold a sweep's
      // work out of the table while adds go on.
      uploader.cancelBag.keepFromReaper()
      var weakPayloads: [WeakPayload] = []
      var largest = 0
      for _ in 0..<100_000 {
        let request = ImageRequest()
        weakPayloads.append(WeakPayload(request.payload))
        uploader.send(request)
        request.complete()
        largest = max(largest, uploader.cancelBag.count)
      }
      return (largest, uploader.cancelBag.count, weakPayloads.count { $0.payload != nil })
    }
    #expect(largest <= BagState.minimumSweepThreshold)
    #expect(held <= BagState.minimumSweepThreshold)
    #expect(alive <= BagState.minimumSweepThreshold)
  }

  /// Adds 100 pieces of work to a bag the way `form` says, completing each after its add,
  /// and expects the sweeps on add to have let the finished work go: work that never leaves
  /// keeps all 100. `addConcretely` is the call with the work's own type, as the docs show.
  private func expectLeaves<Work: AutoCancellable>(
    _ form: CallForm, make: () -> Work, complete: (Work) -> Void,
    addConcretely: (Work, CancelBag) -> Void, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let bag = CancelBag()
    // The bound is the sweeps' on add, which only work the bag asks takes part in.
    bag.keepFromReaper()
    for _ in 0..<100 {
      let work = make()
      switch form {
      case .concrete: addConcretely(work, bag)
      case .generic: addGenerically(work, to: bag)
      case .existential:
        let existential: any AutoCancellable = work
        bag.add(existential)
      }
      complete(work)
    }
    #expect(
      bag.count <= BagState.minimumSweepThreshold, "\(bag.count) of 100 finished pieces stayed",
      sourceLocation: sourceLocation)
  }

  @Test(
    "declared in another module than its AutoCancellable conformance, leaves by itself",
    arguments: CallForm.allCases)
  func finishReportingDeclaredInAnotherModuleLeaves(form: CallForm) {
    expectLeaves(form, make: ForeignRequest.init, complete: { $0.complete() }) { $1.add($0) }
  }

  @Test(
    "declared on a subclass of AutoCancellable work, leaves by itself",
    arguments: CallForm.allCases)
  func finishReportingDeclaredOnASubclassLeaves(form: CallForm) {
    expectLeaves(form, make: Upload.init, complete: { $0.complete() }) { $1.add($0) }
  }

  @Test(
    "declared on a subclass of AutoCancellable work, leaves by itself when added as its superclass"
  )
  func finishReportingDeclaredOnASubclassLeavesAsItsSuperclass() {
    expectLeaves(.concrete, make: Upload.init, complete: { $0.complete() }) { upload, bag in
      let request: APIRequest = upload
      bag.add(request)
    }
  }

  @Test(
    "declared conditionally on a generic wrapper, leaves by itself",
    arguments: CallForm.allCases)
  func finishReportingDeclaredConditionallyLeaves(form: CallForm) {
    expectLeaves(
      form, make: { Logged(work: ImageRequest()) }, complete: { $0.work.complete() }
    ) { $1.add($0) }
  }

  @Test("declared on a subclass, leaves by itself though its plain superclass is added between")
  func finishReportingSubclassLeavesBesideItsSuperclass() {
    let bag = CancelBag()
    bag.keepFromReaper()
    let requests = (0..<100).map { _ in APIRequest() }
    for request in requests {
      bag.add(request)
      let upload = Upload()
      bag.add(upload)
      upload.complete()
    }
    // The 100 plain requests cannot leave; of the uploads, only those since the last sweep stay.
    #expect(bag.count <= requests.count + BagState.minimumSweepThreshold)
    bag.cancelAll()
    #expect(requests.allSatisfy { $0.cancelCount == 1 })
  }

  @Test("declared apart, and still running, stays, and is cancelled once with its bag")
  func finishReportingDeclaredApartStaysWhileRunning() {
    let uploader = Uploader()
    let uploads = (0..<100).map { _ in Upload() }
    for upload in uploads { uploader.autoCancel(upload) }
    #expect(uploader.cancelBag.count == 100)
    uploader.cancelBag.cancelAll()
    #expect(uploads.allSatisfy { $0.cancelCount == 1 })
  }

  @Test("is asked about its progress a bounded number of times per add, however much runs")
  func sweepsAreAmortized() {
    let bag = CancelBag()
    bag.keepFromReaper()
    let requests = (0..<10_000).map { _ in ImageRequest() }
    for request in requests { bag.add(request) }
    #expect(bag.count == 10_000)
    let asks = requests.reduce(0) { $0 + $1.askCount }
    #expect(asks <= 3 * requests.count, "asked \(asks) times for \(requests.count) adds")
  }

  @Test("still running when the owner goes, is cancelled exactly once; swept, is not")
  func runningWorkIsCancelledOnce() {
    var uploader: Uploader? = Uploader()
    uploader?.cancelBag.keepFromReaper()
    let running = (0..<1_000).map { _ in ImageRequest() }
    let finished = (0..<1_000).map { _ in ImageRequest() }
    for (late, done) in zip(running, finished) {
      uploader?.send(late)
      uploader?.send(done)
      done.complete()
    }
    let held = uploader?.cancelBag.count ?? 0
    // Sweeps ran: most finished requests left; the rest wait for the next sweep.
    #expect(held < running.count + finished.count / 2)
    uploader = nil
    #expect(running.allSatisfy { $0.cancelCount == 1 })
    // A finished request not swept yet receives one harmless cancel; a swept one none.
    #expect(finished.allSatisfy { $0.cancelCount <= 1 })
    #expect(finished.reduce(0) { $0 + $1.cancelCount } == held - running.count)
  }

  @Test("is cancelled when the owner goes, if it is a task still running")
  func runningTaskIsCancelled() async {
    var uploader: Uploader? = Uploader()
    let started = Gate()
    let task = Task {
      started.open()
      await suspendUntilCancelled()
      return Task.isCancelled
    }
    uploader?.autoCancel(task)
    await started.wait()
    uploader = nil
    #expect(await task.value)
  }

  @Test("leaves at once if it is a task that already returned")
  func alreadyFinishedTaskLeaves() async {
    let bag = CancelBag()
    let task = Task {}
    await task.value
    let registration = bag.add(task)
    await waitUntil("the finished task left") { !registration.isActive }
    #expect(bag.count == 0)
  }

  @Test("makes two registrations when it is the same task bound twice, both leaving as it returns")
  func sameTaskTwice() async {
    let bag = CancelBag()
    let gate = Gate()
    let task = Task { await gate.wait() }
    let first = bag.add(task)
    let second = bag.add(task)
    #expect(first != second)
    #expect(bag.count == 2)
    gate.open()
    await task.value
    await waitUntil("both registrations left") { bag.count == 0 }
  }

  @Test("is cancelled at once and never registered when its bag has ended")
  func boundAfterEnd() async {
    let bag = CancelBag()
    bag.end()
    let task = Task {
      await suspendUntilCancelled()
      return Task.isCancelled
    }
    let registration = bag.add(task)
    #expect(!registration.isActive)
    #expect(await task.value)
    let request = ImageRequest()
    #expect(!bag.add(request).isActive)
    #expect(request.cancelCount == 1)
  }

  @Test(
    "leaves twice when it is the same request bound twice, and is never cancelled once finished"
  )
  func sameRequestTwice() {
    let bag = CancelBag()
    bag.keepFromReaper()
    let request = ImageRequest()
    bag.add(request)
    bag.add(request)
    request.complete()
    for _ in 0..<BagState.minimumSweepThreshold { bag.add(ImageRequest()) }
    #expect(bag.count == BagState.minimumSweepThreshold)
    bag.end()
    #expect(request.cancelCount == 0)
  }

  @Test("a sweep never touches newer work that took the slot of work it found finished")
  func sweepSparesNewerWorkInAReusedSlot() async {
    let bag = CancelBag()
    bag.keepFromReaper()
    let held = HeldRequest()
    let heldRegistration = bag.add(held)
    let running = (1..<BagState.minimumSweepThreshold).map { _ in ImageRequest() }
    for request in running.dropLast() { bag.add(request) }
    // The last add is due for a sweep, which asks `held` first and waits for its answer.
    async let sweep: Void = onNewThread { bag.add(running.last!) }
    await held.asked.wait()
    // Meanwhile the work completes and leaves, and newer work takes its slot, the only free one.
    held.complete()
    heldRegistration.finish()
    let slots = bag.slotCount
    let newer = RecordingWork()
    let newerRegistration = bag.add(newer)
    #expect(bag.slotCount == slots, "the newer work did not reuse the freed slot")
    held.answer.open()
    await sweep
    #expect(newerRegistration.isActive)
    #expect(bag.count == BagState.minimumSweepThreshold)
    bag.cancelAll()
    #expect(newer.reasons == [.explicit])
  }

  @Test(
    "leaves after a burst that all finished, with no later add: 5,000 requests freed within a second"
  )
  func finishedBurstLeaves() async {
    let uploader = Uploader()
    var weakPayloads: [WeakPayload] = []
    var requests: [ImageRequest] = []
    for _ in 0..<5_000 {
      let request = ImageRequest()
      weakPayloads.append(WeakPayload(request.payload))
      uploader.send(request)
      requests.append(request)
    }
    for request in requests { request.complete() }
    requests = []
    await waitUntil("the finished burst left the bag") { uploader.cancelBag.count == 0 }
    #expect(uploader.cancelBag.snapshot().isEmpty)
    #expect(uploader.cancelBag.slotCount == 0)
    // The reaper lets the work go after it dropped it from the bag, outside the bag's lock.
    await waitUntil("the finished requests were freed") {
      weakPayloads.allSatisfy { $0.payload == nil }
    }
  }

  @Test(
    "of a burst, leaves while the work still running stays, and is cancelled when the owner goes"
  )
  func burstLeavesAroundRunningWork() async {
    var uploader: Uploader? = Uploader()
    let running = (0..<100).map { _ in ImageRequest() }
    let finished = (0..<4_900).map { _ in ImageRequest() }
    for request in running + finished { uploader?.send(request) }
    for request in finished { request.complete() }
    await waitUntil("only the running work is left") { uploader?.cancelBag.count == 100 }
    uploader = nil
    #expect(running.allSatisfy { $0.cancelCount == 1 })
    #expect(finished.allSatisfy { $0.cancelCount == 0 })
  }
}
