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
  // MARK: replace

  @Test(
    "replace cancels everything under the key (running, waiting, beside) and starts at once")
  func replaceCancelsEverythingUnderTheKey() async throws {
    let bag = CancelBag()
    let log = OperationLog()
    let first = bag.task(key: "k", policy: .runConcurrently, operation: log.operation("first"))
    let beside = bag.task(key: "k", policy: .runConcurrently, operation: log.operation("beside"))
    let waiting = bag.task(key: "k", policy: .enqueue, operation: log.operation("waiting"))
    await log.waitUntilStarted("first")
    await log.waitUntilStarted("beside")
    let newest = bag.task(key: "k", policy: .replace, operation: log.operation("newest"))
    await log.waitUntilStarted("newest")
    #expect(await cancellation(of: waiting) == true)
    log.release("first")
    log.release("beside")
    #expect(try await first?.value == .replaced)
    #expect(try await beside?.value == .replaced)
    log.release("newest")
    #expect(try await newest?.value == nil)
    #expect(!log.hasStarted("waiting"))
  }

  // MARK: ignoreNew

  @Test("ignoreNew is refused (nil) while a task runs under the key; its operation never runs")
  func ignoreNewIsRefusedWhileTheKeyRuns() async throws {
    let bag = CancelBag()
    let log = OperationLog()
    let running = bag.task(key: "save", policy: .ignoreNew, operation: log.operation("first"))
    #expect(running != nil)
    await log.waitUntilStarted("first")
    let refused = bag.task(key: "save", policy: .ignoreNew, operation: log.operation("second"))
    #expect(refused == nil)
    #expect(bag.count == 1)
    log.release("first")
    _ = try await running?.value
    let later = bag.task(key: "save", policy: .ignoreNew, operation: log.operation("third"))
    #expect(later != nil)
    log.release("third")
    _ = try await later?.value
    #expect(log.startOrder == ["first", "third"])
  }

  @Test("ignoreNew is refused while a cancelled task under the key has not returned")
  func ignoreNewWaitsForCancelledTasksToReturn() async throws {
    let bag = CancelBag()
    let log = OperationLog()
    let cancelled = bag.task(key: "save", policy: .ignoreNew, operation: log.operation("first"))
    await log.waitUntilStarted("first")
    bag.cancel(key: "save")
    #expect(bag.count == 0)
    // Cancelled, and out of the bag, but its operation still runs.
    #expect(bag.task(key: "save", policy: .ignoreNew, operation: log.operation("x")) == nil)
    log.release("first")
    #expect(try await cancelled?.value == .explicit)
    let later = bag.task(key: "save", policy: .ignoreNew, operation: log.operation("later"))
    #expect(later != nil)
    log.release("later")
    _ = try await later?.value
    #expect(!log.hasStarted("x"))
  }

  // MARK: enqueue

  @Test("enqueue starts each launch once the one before it returned, in launch order")
  func enqueueRunsOneAtATimeInOrder() async throws {
    let bag = CancelBag()
    let log = OperationLog()
    let names = ["a", "b", "c", "d"]
    let tasks = names.map { bag.task(key: "k", policy: .enqueue, operation: log.operation($0)) }
    #expect(bag.count == 4)
    #expect(bag.waitingLaunchCount(key: "k") == 3)
    for name in names {
      await log.waitUntilStarted(name)
      log.release(name)
    }
    for task in tasks { _ = try await task?.value }
    #expect(log.startOrder == names)
    #expect(log.mostAtOnce == 1)
    #expect(
      log.entries == names.flatMap { [OperationLog.Entry.started($0), .returned($0)] })
  }

  @Test("a waiting launch cancelled alone never runs; the others keep their turn")
  func cancellingAWaitingLaunchRemovesOnlyIt() async throws {
    let bag = CancelBag()
    let log = OperationLog()
    let first = bag.task(key: "k", policy: .enqueue, operation: log.operation("first"))
    let second = bag.task(key: "k", policy: .enqueue, operation: log.operation("second"))
    let third = bag.task(key: "k", policy: .enqueue, operation: log.operation("third"))
    await log.waitUntilStarted("first")
    second?.cancel()  // through its handle, while it waits
    #expect(await cancellation(of: second) == true)
    #expect(bag.count == 2)
    log.release("first")
    await log.waitUntilStarted("third")
    log.release("third")
    _ = try await first?.value
    _ = try await third?.value
    #expect(log.startOrder == ["first", "third"])
  }

  @Test("cancelAll and end cancel waiting launches, which never run; nothing starts after end")
  func waitingLaunchesNeverRunOnceCancelled() async throws {
    let bag = CancelBag()
    let log = OperationLog()
    let first = bag.task(key: "k", policy: .enqueue, operation: log.operation("first"))
    let waiting = bag.task(key: "k", policy: .enqueue, operation: log.operation("waiting"))
    await log.waitUntilStarted("first")
    bag.cancelAll()
    #expect(await cancellation(of: waiting) == true)
    let afterCancelAll = bag.task(key: "k", policy: .enqueue, operation: log.operation("next"))
    bag.end()
    #expect(await cancellation(of: afterCancelAll) == true)
    let afterEnd = bag.task(key: "k", policy: .enqueue, operation: log.operation("late"))
    #expect(await cancellation(of: afterEnd) == true)
    log.release("first")
    #expect(try await first?.value == .explicit)
    #expect(log.startOrder == ["first"])
  }

  @Test("enqueue waits for a cancelled task under the key to return")
  func enqueueWaitsForCancelledTasksToReturn() async throws {
    let bag = CancelBag()
    let log = OperationLog()
    let first = bag.task(key: "k", policy: .enqueue, operation: log.operation("first"))
    await log.waitUntilStarted("first")
    bag.cancel(key: "k")
    let next = bag.task(key: "k", policy: .enqueue, operation: log.operation("next"))
    #expect(bag.waitingLaunchCount(key: "k") == 1)
    log.release("first")
    await log.waitUntilStarted("next")
    log.release("next")
    _ = try await first?.value
    _ = try await next?.value
    #expect(
      log.entries == [.started("first"), .returned("first"), .started("next"), .returned("next")])
  }

  // MARK: runConcurrently

  @Test("runConcurrently starts beside what runs; cancel(key:) cancels all of it")
  func runConcurrentlyStartsBeside() async throws {
    let bag = CancelBag()
    let log = OperationLog()
    let tasks = ["a", "b", "c"].map {
      bag.task(key: "k", policy: .runConcurrently, operation: log.operation($0))
    }
    for name in ["a", "b", "c"] { await log.waitUntilStarted(name) }
    #expect(log.mostAtOnce == 3)
    let other = bag.task(key: "other", policy: .runConcurrently, operation: log.operation("o"))
    bag.cancel(key: "k", reason: .custom("gone"))
    #expect(bag.count == 1)
    for name in ["a", "b", "c", "o"] { log.release(name) }
    for task in tasks { #expect(try await task?.value == .custom("gone")) }
    #expect(try await other?.value == nil)
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
