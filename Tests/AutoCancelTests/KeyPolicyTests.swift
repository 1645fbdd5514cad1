import AutoCancelTestSupport
import Testing

@testable import AutoCancel

/// Awaits `task` and says whether it threw `CancellationError` (nil: it returned a value).
private func cancellation<Success>(of task: Task<Success, any Error>?) async -> Bool? {
  guard let task else { return nil }
  do {
    _ = try await task.value
    return false
  } catch {
    return error is CancellationError
  }
}

@Suite("A task launched under a key, by its policy", timeLimit(minutes: 1))
struct KeyPolicyTests {
  /// A new bag for each test, whose tasks run the operations of its log.
  let keyed = LoggedBag()

  // MARK: replace

  @Test(
    "replace cancels everything under the key (running, waiting, beside) and starts at once")
  func replaceCancelsEverythingUnderTheKey() async throws {
    let first = keyed.launch("first", policy: .runConcurrently)
    let beside = keyed.launch("beside", policy: .runConcurrently)
    let waiting = keyed.launch("waiting", policy: .enqueue)
    await keyed.log.waitUntilStarted("first")
    await keyed.log.waitUntilStarted("beside")
    let newest = keyed.launch("newest", policy: .replace)
    await keyed.log.waitUntilStarted("newest")
    #expect(await cancellation(of: waiting) == true)
    #expect(try await keyed.release("first", first) == .replaced)
    #expect(try await keyed.release("beside", beside) == .replaced)
    #expect(try await keyed.release("newest", newest) == nil)
    #expect(!keyed.log.hasStarted("waiting"))
  }

  // MARK: ignoreNew

  @Test("ignoreNew is refused (nil) while a task runs under the key; its operation never runs")
  func ignoreNewIsRefusedWhileTheKeyRuns() async throws {
    let running = keyed.launch("first", key: "save", policy: .ignoreNew)
    #expect(running != nil)
    await keyed.log.waitUntilStarted("first")
    #expect(keyed.launch("second", key: "save", policy: .ignoreNew) == nil)
    #expect(keyed.bag.count == 1)
    try await keyed.release("first", running)
    let later = keyed.launch("third", key: "save", policy: .ignoreNew)
    #expect(later != nil)
    try await keyed.release("third", later)
    #expect(keyed.log.startOrder == ["first", "third"])
  }

  @Test("ignoreNew is refused while a cancelled task under the key has not returned")
  func ignoreNewWaitsForCancelledTasksToReturn() async throws {
    let cancelled = keyed.launch("first", key: "save", policy: .ignoreNew)
    await keyed.log.waitUntilStarted("first")
    keyed.bag.cancel(key: "save")
    #expect(keyed.bag.count == 0)
    // Cancelled, and out of the bag, but its operation still runs.
    #expect(keyed.launch("x", key: "save", policy: .ignoreNew) == nil)
    #expect(try await keyed.release("first", cancelled) == .explicit)
    let later = keyed.launch("later", key: "save", policy: .ignoreNew)
    #expect(later != nil)
    try await keyed.release("later", later)
    #expect(!keyed.log.hasStarted("x"))
  }

  // MARK: enqueue

  @Test("enqueue starts each launch once the one before it returned, in launch order")
  func enqueueRunsOneAtATimeInOrder() async throws {
    let names = ["a", "b", "c", "d"]
    let tasks = names.map { keyed.launch($0, policy: .enqueue) }
    #expect(keyed.bag.count == 4)
    #expect(keyed.bag.waitingLaunchCount(key: "k") == 3)
    for name in names {
      await keyed.log.waitUntilStarted(name)
      keyed.log.release(name)
    }
    for task in tasks { _ = try await task?.value }
    #expect(keyed.log.startOrder == names)
    #expect(keyed.log.mostAtOnce == 1)
    #expect(
      keyed.log.entries == names.flatMap { [OperationLog.Entry.started($0), .returned($0)] })
  }

  @Test("a waiting launch cancelled alone never runs; the others keep their turn")
  func cancellingAWaitingLaunchRemovesOnlyIt() async throws {
    let first = keyed.launch("first", policy: .enqueue)
    let second = keyed.launch("second", policy: .enqueue)
    let third = keyed.launch("third", policy: .enqueue)
    await keyed.log.waitUntilStarted("first")
    second?.cancel()  // through its handle, while it waits
    #expect(await cancellation(of: second) == true)
    #expect(keyed.bag.count == 2)
    try await keyed.release("first", first)
    await keyed.log.waitUntilStarted("third")
    try await keyed.release("third", third)
    #expect(keyed.log.startOrder == ["first", "third"])
  }

  @Test("cancelAll and end cancel waiting launches, which never run; nothing starts after end")
  func waitingLaunchesNeverRunOnceCancelled() async throws {
    let first = keyed.launch("first", policy: .enqueue)
    let waiting = keyed.launch("waiting", policy: .enqueue)
    await keyed.log.waitUntilStarted("first")
    keyed.bag.cancelAll()
    #expect(await cancellation(of: waiting) == true)
    let afterCancelAll = keyed.launch("next", policy: .enqueue)
    keyed.bag.end()
    #expect(await cancellation(of: afterCancelAll) == true)
    #expect(await cancellation(of: keyed.launch("late", policy: .enqueue)) == true)
    #expect(try await keyed.release("first", first) == .explicit)
    #expect(keyed.log.startOrder == ["first"])
  }

  @Test("enqueue waits for a cancelled task under the key to return")
  func enqueueWaitsForCancelledTasksToReturn() async throws {
    let first = keyed.launch("first", policy: .enqueue)
    await keyed.log.waitUntilStarted("first")
    keyed.bag.cancel(key: "k")
    let next = keyed.launch("next", policy: .enqueue)
    #expect(keyed.bag.waitingLaunchCount(key: "k") == 1)
    keyed.log.release("first")
    await keyed.log.waitUntilStarted("next")
    try await keyed.release("next", next)
    _ = try await first?.value
    #expect(
      keyed.log.entries == [
        .started("first"), .returned("first"), .started("next"), .returned("next"),
      ])
  }

  // MARK: runConcurrently

  @Test("runConcurrently starts beside what runs; cancel(key:) cancels all of it")
  func runConcurrentlyStartsBeside() async throws {
    let tasks = ["a", "b", "c"].map { keyed.launch($0, policy: .runConcurrently) }
    for name in ["a", "b", "c"] { await keyed.log.waitUntilStarted(name) }
    #expect(keyed.log.mostAtOnce == 3)
    let other = keyed.launch("o", key: "other", policy: .runConcurrently)
    keyed.bag.cancel(key: "k", reason: .custom("gone"))
    #expect(keyed.bag.count == 1)
    for (name, task) in zip(["a", "b", "c"], tasks) {
      #expect(try await keyed.release(name, task) == .custom("gone"))
    }
    #expect(try await keyed.release("o", other) == nil)
  }

  // MARK: Every policy

  @Test(
    "never runs the operation of a launch on a bag that has ended",
    arguments: [KeyPolicy.replace, .ignoreNew, .enqueue, .runConcurrently])
  func neverRunsOnAnEndedBag(policy: KeyPolicy) async {
    let bag = CancelBag()
    bag.end()
    let started = Gate()
    let task = bag.task(key: "k", policy: policy) { started.open() }
    #expect(await cancellation(of: task) == true)
    #expect(!started.hasOpened)
    #expect(!bag.isRunning(key: "k"))
  }

  @Test("leaves the bag and frees its key as its operation returns, before its awaiter resumes")
  func leavesAsItReturns() async throws {
    let bag = CancelBag()
    for policy in [KeyPolicy.replace, .ignoreNew, .enqueue, .runConcurrently] {
      let task = bag.task(key: "k", policy: policy) { 42 }
      #expect(try await task?.value == 42)
      #expect(bag.count == 0)
      #expect(!bag.isRunning(key: "k"))
    }
  }
}
