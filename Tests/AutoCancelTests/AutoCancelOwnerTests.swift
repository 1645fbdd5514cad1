import AutoCancelTestSupport
import AutoCancel
import AutoCancelDiagnostics
import Dispatch
import Testing

/// A main-actor owner, as screens and view models are.
@MainActor
private final class FeedScreen: AutoCancelOwner {
  let cancelBag = CancelBag(label: "FeedScreen")
  var shown: [Int] = []
  var failures: [any Error] = []
  /// Counts deliveries where a test can read it after the screen is gone.
  let deliveries: Protected<Int>

  init(deliveries: Protected<Int> = Protected(0)) {
    self.deliveries = deliveries
  }

  /// The documented shape: both closures inherit the main actor, and neither captures `self`.
  func reload(_ load: @escaping @Sendable () async throws -> Int) -> Task<Void, Never> {
    // Never nil: without a key, a launch is never refused.
    autoCancelTask {
      try await load()
    } then: { screen, result in
      MainActor.assertIsolated()
      screen.deliveries.withLock { $0 += 1 }
      switch result {
      case .success(let value): screen.shown.append(value)
      case .failure(let error): screen.failures.append(error)
      }
    }!
  }
}

/// State that is not `Sendable`, such as a formatter or a draft being edited.
private final class Draft {
  var text = "draft"
}

/// A main-actor owner that saves with a policy.
@MainActor
private final class EditorScreen: AutoCancelOwner {
  let cancelBag = CancelBag(label: "EditorScreen")
  var saved: [Result<String, any Error>] = []

  /// The documented shape, with a key and a policy; `then` captures a value that is not
  /// `Sendable`, which `sending` allows.
  func save(
    policy: KeyPolicy, _ load: @escaping @Sendable () async throws -> String
  ) -> Task<Void, Never>? {
    let draft = Draft()
    return autoCancelTask(key: "save", policy: policy) {
      try await load()
    } then: { screen, result in
      draft.text = (try? result.get()) ?? draft.text
      screen.saved.append(result.map { _ in draft.text })
    }
  }
}

@Suite("An AutoCancelOwner", timeLimit(minutes: 1))
struct AutoCancelOwnerTests {
  @Test("launches autoCancelTask with a policy: nil when refused, and neither closure runs")
  @MainActor
  func autoCancelTaskWithAPolicyIsRefused() async {
    let screen = EditorScreen()
    let log = OperationLog()
    let first = screen.save(policy: .ignoreNew) {
      _ = await log.operation("first")()
      return "saved"
    }
    await log.waitUntilStarted("first")
    let refused = screen.save(policy: .ignoreNew) { "never" }
    #expect(first != nil)
    #expect(refused == nil)
    log.release("first")
    await first?.value
    #expect(screen.saved.count == 1)
    #expect((try? screen.saved.first?.get()) == "saved")
    #expect(!screen.cancelBag.isRunning(key: "save"))
  }

  @Test(
    "delivers CancellationError, without loading, when a launch with a policy is cancelled before it starts"
  )
  @MainActor
  func autoCancelTaskWithAPolicyDeliversACancellation() async {
    let screen = EditorScreen()
    let log = OperationLog()
    let loads = Protected(0)
    let first = screen.save(policy: .enqueue) {
      _ = await log.operation("first")()
      return "first"
    }
    let waiting = screen.save(policy: .enqueue) {
      loads.withLock { $0 += 1 }
      return "waiting"
    }
    await log.waitUntilStarted("first")
    screen.cancelBag.cancelAll()  // the page was left; the screen stays
    await waiting?.value
    #expect(loads.current == 0)
    #expect(screen.saved.count == 1)
    #expect(screen.saved.first.map { (try? $0.get()) == nil } == true)
    log.release("first")
    await first?.value
    #expect(screen.saved.count == 2)
  }

  @Test("binds class work to its lifetime with autoCancel")
  func autoCancelBindsClassWork() {
    let probe = RecordingWork()
    var owner: ModelOwner? = ModelOwner()
    let registration = owner!.autoCancel(probe, key: "file", label: "download")
    #expect(registration.isActive)
    #expect(owner!.cancelBag.snapshot().map(\.label) == ["download"])
    owner = nil
    #expect(probe.reasons == [.ownerGone])
    #expect(!registration.isActive)
  }

  @Test("binds a Task to its lifetime with autoCancel")
  func autoCancelBindsATask() async {
    let started = Gate()
    var owner: ModelOwner? = ModelOwner()
    let task = Task {
      started.open()
      await suspendUntilCancelled()
      return Task.isCancelled
    }
    owner!.autoCancel(task)
    #expect(owner!.cancelBag.count == 1)
    await started.wait()
    owner = nil
    #expect(await task.value)
  }

  @Test("delivers the result of autoCancelTask to a live owner, on the owner's actor")
  @MainActor
  func autoCancelTaskDeliversToALiveOwner() async {
    let screen = FeedScreen()
    await screen.reload { 42 }.value
    #expect(screen.shown == [42])
    #expect(screen.failures.isEmpty)
    #expect(screen.cancelBag.count == 0)
  }

  @Test("does not keep the owner alive, nor deliver, when the owner goes away mid-load")
  @MainActor
  func autoCancelTaskDoesNotDeliverToAGoneOwner() async {
    let started = Gate()
    let reasonInLoad = Protected<CancellationReason?>(nil)
    let deliveries = Protected(0)
    var screen: FeedScreen? = FeedScreen(deliveries: deliveries)
    let weakScreen = WeakBox(screen)
    let task = screen!.reload {
      started.open()
      await suspendUntilCancelled()
      reasonInLoad.withLock { $0 = CancellationReason.current }
      try Task.checkCancellation()
      return 1
    }
    await started.wait()
    screen = nil
    #expect(weakScreen.object == nil)
    await task.value
    #expect(task.isCancelled)
    #expect(reasonInLoad.current == .ownerGone)
    #expect(deliveries.current == 0)
  }
}

/// An owner that starts tasks capturing itself strongly or weakly, to show the difference.
private final class CapturingScreen: AutoCancelOwner, Sendable {
  let cancelBag = CancelBag()
  let events: Protected<[String]>
  let deinitialized: Gate

  init(events: Protected<[String]>, deinitialized: Gate) {
    self.events = events
    self.deinitialized = deinitialized
  }

  deinit {
    events.withLock { $0.append("owner deinitialized") }
    deinitialized.open()
  }

  /// The trap: `self` in the task keeps the owner, and so its bag, alive.
  func loadCapturingSelfStrongly(until gate: Gate) -> Task<Void, Never> {
    cancelBag.task {
      await gate.wait()
      self.events.withLock { $0.append("task completed, cancelled: \(Task.isCancelled)") }
    }
  }

  /// The fix: `[weak self]` lets the owner go, and the bag's deinit cancels the task.
  func loadCapturingSelfWeakly(started: Gate) -> Task<CancellationReason?, Never> {
    cancelBag.task { [weak self] in
      started.open()
      await suspendUntilCancelled()
      self?.events.withLock { $0.append("still here") }
      return CancellationReason.current
    }
  }
}

@Suite("A task that captures its owner", timeLimit(minutes: 1))
struct RetainCycleTrapTests {
  /// What the screen of each test records, and opens as it deinitializes: kept by the test, as
  /// the screen may be gone when they are read.
  let events = Protected<[String]>([])
  let deinitialized = Gate()

  @Test("strongly keeps the owner alive until the task completes")
  func strongCaptureKeepsTheOwnerAlive() async {
    let gate = Gate()
    var screen: CapturingScreen? = CapturingScreen(events: events, deinitialized: deinitialized)
    let weakScreen = WeakBox(screen)
    var task: Task<Void, Never>? = screen!.loadCapturingSelfStrongly(until: gate)

    screen = nil  // the screen is "closed"…
    #expect(weakScreen.object != nil, "…but the task still holds it, so its bag never cancels")
    #expect(task?.isCancelled == false)

    gate.open()  // only when the work completes on its own…
    await task?.value
    task = nil
    await deinitialized.wait()  // …is the owner freed, and then there is nothing to cancel.
    #expect(events.current == ["task completed, cancelled: false", "owner deinitialized"])
  }

  @Test("weakly lets the owner go, and is cancelled (ownerGone)")
  func weakCaptureLetsTheOwnerGo() async {
    let started = Gate()
    var screen: CapturingScreen? = CapturingScreen(events: events, deinitialized: deinitialized)
    let weakScreen = WeakBox(screen)
    let task = screen!.loadCapturingSelfWeakly(started: started)
    await started.wait()

    screen = nil
    #expect(weakScreen.object == nil)
    #expect(deinitialized.hasOpened)
    #expect(await task.value == .ownerGone)
    #expect(events.current == ["owner deinitialized"])
  }
}
