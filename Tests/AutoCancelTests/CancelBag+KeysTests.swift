import AutoCancelTestSupport
import Dispatch
import SeededRandom
import Testing

@testable import AutoCancel

@Suite("Work added under a key, by its policy")
struct CancelBagKeyedAddTests {
  @Test("ignoreNew cancels the new work at once (duplicate) while the key runs, and keeps the old")
  func ignoreNewCancelsTheNewWork() {
    let bag = CancelBag()
    let running = RecordingWork("running")
    let duplicate = RecordingWork("duplicate")
    let kept = bag.add(running, key: "refresh", policy: .ignoreNew)
    let refused = bag.add(duplicate, key: "refresh", policy: .ignoreNew)
    #expect(kept.isActive)
    #expect(!refused.isActive)
    #expect(duplicate.reasons == [.duplicate])
    #expect(running.reasons.isEmpty)
    #expect(bag.count == 1)
    kept.finish()
    let afterwards = RecordingWork("afterwards")
    #expect(bag.add(afterwards, key: "refresh", policy: .ignoreNew).isActive)
  }

  @Test("runConcurrently keeps both; a later replace cancels both, oldest first")
  func runConcurrentlyKeepsBoth() {
    let bag = CancelBag()
    let order = CancelOrderLog()
    let first = bag.add(order.probe("first"), key: "prefetch", policy: .runConcurrently)
    let second = bag.add(order.probe("second"), key: "prefetch", policy: .runConcurrently)
    #expect(first.isActive && second.isActive)
    let newest = bag.add(RecordingWork("newest"), key: "prefetch")
    #expect(order.order == ["first", "second"])
    #expect(!first.isActive && !second.isActive && newest.isActive)
  }

  @Test("replace cancels everything under the key with reason replaced")
  func replaceCancelsEverything() {
    let bag = CancelBag()
    let works = (0..<3).map { RecordingWork("\($0)") }
    for work in works { bag.add(work, key: "k", policy: .runConcurrently) }
    bag.add(RecordingWork("new"), key: "k", policy: .replace)
    #expect(works.allSatisfy { $0.reasons == [.replaced] })
    #expect(bag.count == 1)
  }

  @Test("added work holds its key while registered: a waiting launch starts once it finished")
  func addedWorkHoldsItsKey() async throws {
    let bag = CancelBag()
    let registration = bag.add(RecordingWork("upload"), key: "sync", policy: .runConcurrently)
    let started = Gate()
    let next = bag.task(key: "sync", policy: .enqueue) { started.open() }
    #expect(bag.waitingLaunchCount(key: "sync") == 1)
    #expect(bag.isRunning(key: "sync"))
    registration.finish()
    try await next?.value
    #expect(started.hasOpened)
    #expect(!bag.isRunning(key: "sync"))
  }
}

@Suite("Cancelling by key", timeLimit(minutes: 1))
struct CancelBagCancelKeyTests {
  /// A new bag for each test.
  let bag = CancelBag()

  @Test("cancels everything under the key, oldest first, with the reason given, and nothing else")
  func cancelsEverythingUnderTheKey() {
    let order = CancelOrderLog()
    let first = order.probe("first")
    let second = order.probe("second")
    let other = RecordingWork("other")
    bag.add(first, key: "k", policy: .runConcurrently)
    bag.add(other, key: "other")
    bag.add(second, key: "k", policy: .runConcurrently)
    bag.cancel(key: "k", reason: .custom("scrolled away"))
    #expect(order.order == ["first", "second"])
    #expect(first.reasons == [.custom("scrolled away")])
    #expect(other.reasons.isEmpty)
    #expect(bag.count == 1)
    bag.cancel(key: "nothing here")
    #expect(bag.count == 1)
  }

  @Test("lets no waiting launch through: the key stops running at once when nothing else runs")
  func letsNoWaitingLaunchThrough() async throws {
    let log = OperationLog()
    let first = bag.task(key: "k", policy: .enqueue, operation: log.operation("first"))
    let waiting = bag.task(key: "k", policy: .enqueue, operation: log.operation("waiting"))
    await log.waitUntilStarted("first")
    // Added beside them: once `first` returns, this holds the key, and `waiting` still waits.
    bag.add(RecordingWork("beside"), key: "k", policy: .runConcurrently)
    log.release("first")
    _ = try await first?.value
    #expect(bag.waitingLaunchCount(key: "k") == 1)
    bag.cancel(key: "k")
    #expect(!bag.isRunning(key: "k"))
    await #expect(throws: CancellationError.self) { _ = try await waiting?.value }
    #expect(!log.hasStarted("waiting"))
  }

  @Test("work under the key added later is not affected, and the key runs again")
  func laterWorkIsNotAffected() {
    bag.add(RecordingWork("old"), key: "k")
    bag.cancel(key: "k")
    #expect(!bag.isRunning(key: "k"))
    let later = RecordingWork("later")
    bag.add(later, key: "k")
    #expect(bag.isRunning(key: "k"))
    #expect(later.reasons.isEmpty)
  }
}

@Suite("Whether a key runs", timeLimit(minutes: 1))
struct CancelBagIsRunningTests {
  @Test("a launched task runs under its key until its operation returns, cancelled or not")
  func runsUntilTheOperationReturns() async throws {
    let bag = CancelBag()
    let log = OperationLog()
    #expect(!bag.isRunning(key: "k"))
    let task = bag.task(key: "k", operation: log.operation("task"))
    #expect(bag.isRunning(key: "k"))
    await log.waitUntilStarted("task")
    bag.cancelAll()
    #expect(bag.count == 0)
    #expect(bag.isRunning(key: "k"))
    log.release("task")
    #expect(await task.value == .explicit)
    #expect(!bag.isRunning(key: "k"))
  }

  @Test("added work runs under its key while it is registered")
  func addedWorkRunsWhileRegistered() {
    let bag = CancelBag()
    let registration = bag.add(RecordingWork("work"), key: "k")
    #expect(bag.isRunning(key: "k"))
    #expect(!bag.isRunning(key: "other"))
    registration.finish()
    #expect(!bag.isRunning(key: "k"))
    #expect(bag.keyEntryCount == 0)
  }

  @Test("a key runs after its bag ended, until the last task under it returns")
  func runsAfterTheBagEndedUntilTasksReturn() async {
    var bag: CancelBag? = CancelBag()
    let log = OperationLog()
    let task = bag!.task(key: "k", operation: log.operation("task"))
    await log.waitUntilStarted("task")
    let probe = bag!.core  // the bag's storage, which outlives the bag while its tasks run
    bag = nil  // ends with ownerGone; the task still runs
    #expect(probe.isRunning(BagKey("k")))
    log.release("task")
    #expect(await task.value == .ownerGone)
    #expect(!probe.isRunning(BagKey("k")))
  }
}

@Suite("Following whether a key runs", timeLimit(minutes: 1))
struct CancelBagRunningUpdatesTests {
  /// Collects the values of `updates` until it ends, or until `count` values arrived.
  private static func collect(
    _ updates: AsyncStream<Bool>, count: Int = .max
  ) async -> [Bool] {
    var values: [Bool] = []
    for await value in updates {
      values.append(value)
      if values.count == count { break }
    }
    return values
  }

  @Test("yields the current state at once, then each change, never the same value twice in a row")
  func yieldsCurrentStateThenChanges() async {
    let bag = CancelBag()
    let registration = bag.add(RecordingWork("running"), key: "k")
    var updates = bag.runningUpdates(key: "k").makeAsyncIterator()
    #expect(await updates.next() == true)
    // Still running: a second holder is no change.
    let second = bag.add(RecordingWork("second"), key: "k", policy: .runConcurrently)
    registration.finish()
    second.finish()
    #expect(await updates.next() == false)
    let log = OperationLog()
    let task = bag.task(key: "k", operation: log.operation("task"))
    #expect(await updates.next() == true)
    log.release("task")
    _ = await task.value
    #expect(await updates.next() == false)
  }

  @Test("a reader slower than the key's changes never reads the same value twice in a row")
  func slowReaderNeverReadsARepeat() async {
    let bag = CancelBag()
    let updates = bag.runningUpdates(key: "k")
    let (reads, read) = AsyncStream.makeStream(of: Bool.self)
    let (turns, turn) = AsyncStream.makeStream(of: Void.self)
    let reader = Task {
      var turns = turns.makeAsyncIterator()
      for await value in updates {
        read.yield(value)
        // Reads again only when given a turn: slower than any change made meanwhile.
        guard await turns.next() != nil else { break }
      }
      read.finish()
    }
    var values = reads.makeAsyncIterator()
    #expect(await values.next() == false)
    var holder: CancelRegistration?
    for round in 1...4 {
      // While the reader waits for its turn, the key changes twice, back to the value it read
      // last; then, its turn given, once more: that change is what it reads next.
      if let running = holder {
        running.finish()
        holder = bag.add(RecordingWork("round \(round)"), key: "k")
        turn.yield()
        holder?.finish()
        holder = nil
      } else {
        bag.add(RecordingWork("round \(round)"), key: "k").finish()
        turn.yield()
        holder = bag.add(RecordingWork("holder \(round)"), key: "k")
      }
      #expect(await values.next() == (holder != nil), "round \(round)")
    }
    turn.finish()
    await reader.value
  }

  @Test("ends once the bag ended and nothing runs under the key any more")
  func endsWithTheBag() async {
    let bag = CancelBag()
    let log = OperationLog()
    let task = bag.task(key: "k", operation: log.operation("task"))
    let updates = bag.runningUpdates(key: "k")
    let collected = Task { await Self.collect(updates) }
    await log.waitUntilStarted("task")
    bag.end()
    log.release("task")
    _ = await task.value
    #expect(await collected.value == [true, false])
    #expect(bag.keyEntryCount == 0)
    // On an ended bag with nothing running: false, then the end.
    #expect(await Self.collect(bag.runningUpdates(key: "k")) == [false])
  }

  @Test("stops following, and lets the bag forget the key, when its consumer stops")
  func stopsWhenTheConsumerStops() async {
    let bag = CancelBag()
    let read = Protected<[Bool]>([])
    let consumer = Task {
      for await value in bag.runningUpdates(key: "k") { read.withLock { $0.append(value) } }
    }
    // Cancelled once it has read the key's state: a consumer cancelled before its first read
    // may end without reading anything.
    await waitUntil("the consumer read the key's state") { read.current == [false] }
    #expect(bag.keyEntryCount == 1)
    consumer.cancel()
    await consumer.value
    #expect(read.current == [false])
    await waitUntil("the bag forgot the key") { bag.keyEntryCount == 0 }
  }

  @Test(
    "ends on the key's last state when changes race on many threads",
    arguments: TestSeed.seeds([0x5EED_00A1, 0x5EED_00A2]))
  func lastValueIsTheFinalState(seed: UInt64) async {
    let bag = CancelBag()
    let updates = bag.runningUpdates(key: "k")
    let reader = Task { await Self.collect(updates) }
    let rounds = StressScale.underSanitizer ? 200 : 2_000
    // Four threads add and finish work under the key while the reader reads: the key changes
    // state thousands of times, from threads that race to tell the stream.
    await onThreads(4) { index in
      var random = SeededGenerator(seed: SeededGenerator.derive(seed, index + 1))
      for _ in 0..<rounds {
        let registration = bag.add(RecordingWork("w"), key: "k", policy: .runConcurrently)
        if random.chance(50) { _ = bag.isRunning(key: "k") }
        registration.finish()
      }
    }
    #expect(!bag.isRunning(key: "k"))
    // Nothing runs under the key of an ended bag: the sequence ends, on the key's last state.
    bag.end()
    let values = await reader.value
    #expect(values.last == false, "\(TestSeed.describe(seed))")
    #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 }, "\(TestSeed.describe(seed))")
  }

}
