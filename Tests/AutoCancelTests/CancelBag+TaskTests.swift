import AutoCancelTestSupport
import AutoCancel
import AutoCancelDiagnostics
import Testing

/// State only the main actor may touch: the compiler rejects access from elsewhere.
@MainActor
private final class MainActorCounter {
  var value = 0
}

@Suite("A task launched by a CancelBag", timeLimit(minutes: 1))
struct CancelBagTaskTests {
  /// A new bag for each test.
  let bag = CancelBag()

  @Test("is registered in the bag before it starts")
  func registeredBeforeItStarts() async throws {
    let gate = Gate()
    let countInside = Protected<Int?>(nil)
    let task = bag.task {
      countInside.withLock { $0 = bag.count }
      await gate.wait()
      try Task.checkCancellation()
    }
    #expect(bag.count == 1)
    gate.open()
    try await task.value
    #expect(countInside.current == 1)
  }

  @Test("is gone from the bag before an awaiter of its value resumes")
  func goneBeforeTheAwaiterResumes() async throws {
    for index in 0..<200 {
      let throwing = bag.task { () async throws -> Int in index }
      #expect(try await throwing.value == index)
      #expect(bag.count == 0)
      let nonThrowing = bag.task { () async -> Int in index }
      #expect(await nonThrowing.value == index)
      #expect(bag.count == 0)
    }
  }

  @Test("is gone from the bag when its operation throws")
  func goneWhenItThrows() async {
    struct Failure: Error {}
    let task = bag.task { () async throws -> Int in throw Failure() }
    await #expect(throws: Failure.self) { try await task.value }
    #expect(bag.count == 0)
  }

  @Test("is cancelled when the bag ends, and reads the end reason as CancellationReason.current")
  func cancelledWhenTheBagEnds() async throws {
    let started = Gate()
    let task = bag.task {
      started.open()
      await suspendUntilCancelled()
      try Task.checkCancellation()
    }
    await started.wait()
    bag.end(reason: .custom("closed"))
    await #expect(throws: CancellationError.self) { try await task.value }
    #expect(bag.count == 0)

    let secondBag = CancelBag()
    let reading = await secondBag.taskUntilCancelled { CancellationReason.current }
    secondBag.end(reason: .custom("closed"))
    #expect(await reading.value == .custom("closed"))
  }

  @Test("is cancelled when the bag is deinitialized, reading ownerGone")
  func cancelledWhenTheBagIsDeinitialized() async {
    var shortLived: CancelBag? = CancelBag()
    let task = await shortLived!.taskUntilCancelled {
      (Task.isCancelled, CancellationReason.current)
    }
    shortLived = nil
    let (cancelled, reason) = await task.value
    #expect(cancelled)
    #expect(reason == .ownerGone)
  }

  @Test("is cancelled with reason replaced when a newer task takes its key")
  func replacedUnderItsKey() async {
    let older = await bag.taskUntilCancelled(key: "search") { CancellationReason.current }
    let newer = bag.task(key: "search") { () async -> CancellationReason? in
      CancellationReason.current
    }
    #expect(await older.value == .replaced)
    #expect(await newer.value == nil)
    #expect(bag.count == 0)
  }

  @Test("starts already cancelled on an ended bag, reading the end reason")
  func startsCancelledOnAnEndedBag() async {
    bag.end(reason: .custom("closed"))
    // The operation runs on the global executor and may start at once, on another thread, so
    // try many times: an operation that starts before the task is cancelled must not exist.
    let attempts = StressScale.underSanitizer ? 500 : 2_000
    var startedUncancelled = 0
    var wrongReasons: [CancellationReason?] = []
    for _ in 0..<attempts {
      let task = bag.task { () async -> (Bool, CancellationReason?) in
        (Task.isCancelled, CancellationReason.current)
      }
      #expect(task.isCancelled)
      let (cancelled, reason) = await task.value
      if !cancelled { startedUncancelled += 1 }
      if reason != .custom("closed") { wrongReasons.append(reason) }
    }
    #expect(startedUncancelled == 0, "\(startedUncancelled) of \(attempts) started uncancelled")
    #expect(wrongReasons.isEmpty)
    #expect(bag.count == 0)
    let throwing = bag.task { () async throws in try Task.checkCancellation() }
    await #expect(throws: CancellationError.self) { try await throwing.value }
  }

  @Test("reads no reason while it has not been cancelled")
  func noReasonUntilCancelled() async {
    let task = bag.task { () async -> CancellationReason? in CancellationReason.current }
    #expect(await task.value == nil)
  }

  @Test("runs on the caller's actor, in both forms")
  @MainActor
  func runsOnTheCallersActor() async throws {
    let counter = MainActorCounter()
    // No `await` before touching `counter`: this compiles only if the operation is
    // main-actor isolated, and `assertIsolated` checks it at run time.
    let nonThrowing = bag.task { () -> Int in
      MainActor.assertIsolated()
      counter.value += 1
      return counter.value
    }
    #expect(await nonThrowing.value == 1)
    let throwing = bag.task { () throws -> Int in
      MainActor.assertIsolated()
      try Task.checkCancellation()
      counter.value += 1
      return counter.value
    }
    #expect(try await throwing.value == 2)
    #expect(bag.count == 0)
  }

  #if compiler(>=6.2)
    @Test("is named by its label and its key, the label alone, the key alone, or none")
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    func isNamedByItsLabelAndKey() async throws {
      #expect(await bag.task(key: "refresh", label: "load") { Task.name }.value == "load [refresh]")
      #expect(await bag.task(label: "load") { Task.name }.value == "load")
      #expect(await bag.task(key: 42) { Task.name }.value == "[42]")
      #expect(await bag.task { Task.name }.value == nil)
      let policy = bag.task(key: "save", policy: .ignoreNew, label: "save") { Task.name }
      #expect(try await policy?.value == "save [save]")
    }
  #endif
}

@Suite("The reason of a bag task", timeLimit(minutes: 1))
struct CancellationReasonScopeTests {
  @Test("does not leak into an unstructured task made inside it that nobody cancelled")
  func doesNotLeakIntoUnstructuredTasks() async {
    let bag = CancelBag()
    let reasons = bag.task(key: "k") {
      () async -> (CancellationReason?, CancellationReason?) in
      // An hour, cut short when a newer task takes the key.
      try? await Task.sleep(nanoseconds: 3_600_000_000_000)
      let outer = CancellationReason.current
      let inner = await Task { CancellationReason.current }.value
      return (outer, inner)
    }
    let replacement = bag.task(key: "k") {}
    _ = replacement
    let (outer, inner) = await reasons.value
    #expect(outer == .replaced)
    #expect(inner == nil)
  }
}

@Suite("The reason of a bag task, where the bag did not cause the cancellation")
struct ForeignCancellationReasonTests {
  /// A new bag for each test.
  let bag = CancelBag()

  @Test(
    "is nil in an unstructured task made inside it, cancelled by the user, after the bag replaced it"
  )
  func nilInUserCancelledUnstructuredTask() async {
    let innerStarted = Gate()
    let bagCancelled = Gate()
    let inner = Protected<Task<CancellationReason?, Never>?>(nil)
    let outer = bag.task(key: "k") { () async -> CancellationReason? in
      let task = Task { () async -> CancellationReason? in
        innerStarted.open()
        await suspendUntilCancelled()
        await bagCancelled.wait()
        return CancellationReason.current
      }
      inner.withLock { $0 = task }
      await suspendUntilCancelled()
      return CancellationReason.current
    }
    await innerStarted.wait()
    let innerTask = inner.withLock { $0 }!
    innerTask.cancel()
    bag.task(key: "k") {}
    #expect(await outer.value == .replaced)
    bagCancelled.open()
    #expect(await innerTask.value == nil)
  }

  @Test("is nil in a bag task cancelled through its handle before the bag ended")
  func nilWhenCancelledThroughHandle() async {
    let bagEnded = Gate()
    let task = await bag.taskUntilCancelled { () async -> CancellationReason? in
      await bagEnded.wait()
      return CancellationReason.current
    }
    task.cancel()
    bag.end(reason: .custom("closed"))
    bagEnded.open()
    #expect(await task.value == nil)
  }

  @Test("is nil in a child task, and the bag's reason in the bag task around it")
  func childTasksReadNil() async {
    let started = Gate()
    let task = bag.task { () async -> (CancellationReason?, CancellationReason?) in
      async let child: CancellationReason? = {
        started.open()
        await suspendUntilCancelled()
        return CancellationReason.current
      }()
      let inChild = await child
      return (inChild, CancellationReason.current)
    }
    await started.wait()
    bag.cancelAll(reason: .custom("left"))
    let (inChild, inBagTask) = await task.value
    #expect(inChild == nil)
    #expect(inBagTask == .custom("left"))
  }
}

@Suite("The failure of a bag task", timeLimit(minutes: 1))
struct CancelBagTaskFailureTests {
  struct Offline: Error, CustomStringConvertible {
    var description: String { "offline" }
  }

  /// The kinds of the events a bag sent, in order.
  final class Kinds: Sendable {
    private let state = Protected<[CancelBagEvent.Kind]>([])
    func append(_ event: CancelBagEvent) { state.withLock { $0.append(event.kind) } }
    var all: [CancelBagEvent.Kind] { state.current }
  }

  @Test("reaches the bag's observers, with the error, when nobody awaits the task")
  func thrownErrorReachesObservers() async {
    let bag = CancelBag()
    let kinds = Kinds()
    let labels = Protected<[String?]>([])
    bag.observe { event in
      kinds.append(event)
      labels.withLock { $0.append(event.item.label) }
    }
    bag.task(label: "sync") { () async throws -> Void in throw Offline() }
    await waitUntil("the task ended") { kinds.all.count == 2 }
    #expect(kinds.all == [.registered, .failed(Offline())])
    #expect(labels.current == ["sync", "sync"])
    #expect(bag.count == 0)
  }

  @Test("is reported before an awaiter of the task resumes")
  func reportedBeforeTheAwaiterResumes() async {
    let bag = CancelBag()
    let kinds = Kinds()
    bag.observe(kinds.append)
    let task = bag.task { () async throws -> Int in throw Offline() }
    _ = await task.result
    #expect(kinds.all == [.registered, .failed(Offline())])
  }

  @Test("is not a CancellationError the operation throws: the task finishes")
  func cancellationIsNoFailure() async {
    let bag = CancelBag()
    let kinds = Kinds()
    bag.observe(kinds.append)
    _ = await bag.task { () async throws -> Void in throw CancellationError() }.result
    #expect(kinds.all == [.registered, .finished])
  }

  @Test("is not what a task the bag cancelled throws afterwards: it was cancelled")
  func cancelledTaskIsNotFailedToo() async {
    let bag = CancelBag()
    let kinds = Kinds()
    bag.observe(kinds.append)
    let started = Gate()
    let task = bag.task { () async throws -> Void in
      started.open()
      while !Task.isCancelled { await Task.yield() }
      throw Offline()
    }
    await started.wait()
    bag.cancelAll()
    _ = await task.result
    #expect(kinds.all == [.registered, .cancelled(.explicit)])
  }

  @Test("is none when the operation returns: the task finishes")
  func successFinishes() async throws {
    let bag = CancelBag()
    let kinds = Kinds()
    bag.observe(kinds.append)
    #expect(try await bag.task { () async throws -> Int in 7 }.value == 7)
    #expect(await bag.task { () async -> Int in 8 }.value == 8)
    #expect(kinds.all == [.registered, .finished, .registered, .finished])
  }

  @Test("reaches observers from a task launched under a key, by policy or not")
  func keyedTaskFailureReachesObservers() async {
    let bag = CancelBag()
    let kinds = Kinds()
    bag.observe(kinds.append)
    _ = await bag.task(key: "a") { () async throws -> Void in throw Offline() }.result
    _ = await bag.task(key: "b", policy: .enqueue) { () async throws -> Void in throw Offline() }?
      .result
    #expect(kinds.all == [.registered, .failed(Offline()), .registered, .failed(Offline())])
    #expect(!bag.isRunning(key: "a") && !bag.isRunning(key: "b"))
  }

  @Test("reaches observers from a Task bound with add")
  func addedTaskFailureReachesObservers() async {
    let bag = CancelBag()
    let kinds = Kinds()
    bag.observe(kinds.append)
    bag.add(Task { () async throws -> Void in throw Offline() })
    await waitUntil("the task ended") { kinds.all.count == 2 }
    #expect(kinds.all == [.registered, .failed(Offline())])
  }
}
