import AutoCancelTestSupport
@testable import AutoCancel
import AutoCancelDiagnostics
import Dispatch
import SeededRandom
import Testing

@Suite("A CancelBag's keys, raced")
struct CancelBagKeyRaceTests {
  @Test(
    "never evict the successor of work replaced as it completes",
    arguments: TestSeed.seeds([1, 2, 3]))
  func replaceWhileCompleting(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    let bag = CancelBag()
    let rounds = 2_000
    let works = (0..<rounds).map { _ in RecordingWork() }
    var registrations: [CancelRegistration] = []
    registrations.reserveCapacity(rounds)
    registrations.append(bag.add(works[0], key: "search"))
    for round in 1..<rounds {
      let previous = registrations[round - 1]
      let finishFirst = random.next() % 2 == 0
      // The old search completes on another thread while the new one replaces it.
      let replacement = Protected<CancelRegistration?>(nil)
      DispatchQueue.concurrentPerform(iterations: 2) { lane in
        if (lane == 0) == finishFirst {
          previous.finish()
        } else {
          let registration = bag.add(works[round], key: "search")
          replacement.withLock { $0 = registration }
        }
      }
      let current = replacement.withLock { $0 }!
      registrations.append(current)
      previous.finish()  // a late, stale completion
      #expect(current.isActive, "\(TestSeed.describe(seed)), round \(round)")
      #expect(bag.count == 1)
      // The old one ended exactly once: finished (no reason) or replaced.
      #expect(works[round - 1].reasons.count <= 1)
      #expect(works[round - 1].reasons.allSatisfy { $0 == .replaced })
    }
    bag.end()
    #expect(works[rounds - 1].reasons == [.explicit])
  }
}

/// Counts the operations running at once, and the most that ever did.
private final class Concurrency: Sendable {
  private let state = Protected((running: 0, most: 0, ran: 0))

  /// Runs `body` as one more operation running at once.
  func run(_ body: () async -> Void) async {
    state.withLock { state in
      state.running += 1
      state.ran += 1
      state.most = max(state.most, state.running)
    }
    await body()
    state.withLock { $0.running -= 1 }
  }

  var most: Int { state.current.most }
  var ran: Int { state.current.ran }
}

/// Sleeps until the task is cancelled: thousands of tasks wait this way at once, so they must
/// not poll (``suspendUntilCancelled()`` would wake each of them every millisecond).
private func sleepUntilCancelled() async {
  try? await Task.sleep(nanoseconds: 3_600_000_000_000)
}

@Suite("A CancelBag's key policies, raced", timeLimit(minutes: 2))
struct CancelBagKeyPolicyRaceTests {
  static let threads = 4
  static var launchesPerThread: Int { StressScale.underSanitizer ? 150 : 1_000 }

  /// A new bag for each test, and the count of its operations running at once.
  let bag = CancelBag()
  private let concurrency = Concurrency()

  /// Runs `launch(thread, step, &random)` for each step of ``launchesPerThread`` on each of
  /// ``threads`` threads started together; each thread draws from a generator of its own,
  /// derived from `seed`.
  func launchOnThreads(
    seed: UInt64,
    _ launch: @escaping @Sendable (_ thread: Int, _ step: Int, inout SeededGenerator) -> Void
  ) async {
    await onThreads(Self.threads) { index in
      var random = SeededGenerator(seed: SeededGenerator.derive(seed, index + 1))
      for step in 0..<Self.launchesPerThread { launch(index, step, &random) }
    }
  }

  @Test(
    "ignoreNew never lets two operations run at once, while launches race with returns",
    arguments: TestSeed.seeds([0x5EED_1001, 0x5EED_1002]))
  func ignoreNewKeepsOneAtATime(seed: UInt64) async throws {
    let launched = Protected<[Task<Void, any Error>]>([])
    let refused = Protected(0)
    await launchOnThreads(seed: seed) { _, _, random in
      let yields = random.below(3)
      let task = bag.task(key: "save", policy: .ignoreNew) {
        await concurrency.run { for _ in 0..<yields { await Task.yield() } }
      }
      if let task {
        launched.withLock { $0.append(task) }
      } else {
        refused.withLock { $0 += 1 }
      }
    }
    for task in launched.current { try await task.value }
    let context = "\(TestSeed.describe(seed)), \(refused.current) refused"
    #expect(concurrency.most == 1, "\(context)")
    // Every launch let through ran its operation, once; none was lost.
    #expect(concurrency.ran == launched.current.count, "\(context)")
    #expect(launched.current.count + refused.current == Self.threads * Self.launchesPerThread)
    #expect(bag.count == 0 && !bag.isRunning(key: "save"), "\(context)")
    #expect(try await bag.task(key: "save", policy: .ignoreNew) {}?.value != nil)
  }

  @Test(
    "enqueue starts one at a time, in launch order, while launches race with returns and cancels",
    arguments: TestSeed.seeds([0x5EED_2001, 0x5EED_2002]))
  func enqueueStartsInLaunchOrder(seed: UInt64) async throws {
    // The order of the launches is the order of their registrations: the bag's item numbers.
    let sequences = Protected<[String: UInt64]>([:])
    bag.observe { event in
      if event.kind == .registered, let label = event.item.label {
        sequences.withLock { $0[label] = event.item.id }
      }
    }
    let starts = Protected<[String]>([])
    let launched = Protected<[(label: String, task: Task<Void, any Error>, cancelled: Bool)]>([])
    await launchOnThreads(seed: seed) { index, step, random in
      let label = "\(index).\(step)"
      let task = bag.task(key: "sync", policy: .enqueue, label: label) {
        starts.withLock { $0.append(label) }
        await concurrency.run { await Task.yield() }
      }!
      // A tenth of the launches are cancelled at once, most while they wait for their turn.
      let cancels = random.chance(10)
      if cancels { task.cancel() }
      launched.withLock { $0.append((label, task, cancels)) }
    }
    var results: [(label: String, result: Result<Void, any Error>, cancelled: Bool)] = []
    for (label, task, cancelled) in launched.current {
      results.append((label, await task.result, cancelled))
    }
    // Every task has ended: every operation that ran has started.
    let started = Set(starts.current)
    var ranCancelled = 0
    var problems: [String] = []
    for (label, result, cancelled) in results {
      if !cancelled {
        if !started.contains(label) { problems.append("\(label) never started") }
        if case .failure(let error) = result { problems.append("\(label) threw \(error)") }
      } else if started.contains(label) {
        ranCancelled += 1  // cancelled after it started: it ran to its end
      } else if case .success = result {
        problems.append("\(label), cancelled before it started, returned")
      }
    }
    let problemCount = problems.count
    #expect(problemCount == 0, "\(problems.prefix(5)), \(TestSeed.describe(seed))")
    let order = starts.current.map { sequences.current[$0]! }
    let inversion = zip(order, order.dropFirst()).first { $0 > $1 }
    #expect(concurrency.most == 1, "\(TestSeed.describe(seed))")
    #expect(
      inversion == nil,
      "launch #\(inversion?.0 ?? 0) started before #\(inversion?.1 ?? 0), \(TestSeed.describe(seed))"
    )
    #expect(started.count == starts.current.count, "an operation ran twice")
    #expect(bag.count == 0 && !bag.isRunning(key: "sync"))
    print(
      "enqueue race, \(TestSeed.describe(seed)): \(order.count) started, \(ranCancelled) "
        + "of them cancelled after starting")
  }

  @Test(
    "a replacing launch cancels every task launched beside before it, and none after it",
    arguments: TestSeed.seeds([0x5EED_3001, 0x5EED_3002]))
  func replaceCancelsEverythingBeforeIt(seed: UInt64) async throws {
    let events = Protected<[UInt64: [CancelBagEvent.Kind]]>([:])
    bag.observe { event in events.withLock { $0[event.item.id, default: []].append(event.kind) } }
    let launched = Protected<[Task<Void, any Error>]>([])
    let replacer = Protected<UInt64?>(nil)
    var random = SeededGenerator(seed: seed)
    let replaceAt = random.below(Self.launchesPerThread)
    await launchOnThreads(seed: seed) { index, step, _ in
      if index == 0 && step == replaceAt {
        // The replacing launch: its item number divides the others into before and after.
        let task = bag.task(key: "prefetch", policy: .replace, label: "replacer") {
          await sleepUntilCancelled()
        }!
        launched.withLock { $0.append(task) }
        let id = bag.snapshot().first { $0.label == "replacer" }?.id
        replacer.withLock { $0 = id }
        return
      }
      let task = bag.task(key: "prefetch", policy: .runConcurrently) {
        await sleepUntilCancelled()
      }!
      launched.withLock { $0.append(task) }
    }
    bag.cancelAll(reason: .custom("done"))
    for task in launched.current { _ = await task.result }
    let replacerID = try #require(replacer.current)
    for (id, kinds) in events.current {
      let terminals = kinds.filter { $0 != .registered }
      #expect(terminals.count == 1, "item \(id): \(kinds), \(TestSeed.describe(seed))")
      let expected: CancelBagEvent.Kind =
        id < replacerID ? .cancelled(.replaced) : .cancelled(.custom("done"))
      #expect(terminals.first == expected, "item \(id) of replacer \(replacerID): \(kinds)")
    }
    #expect(events.current.count == Self.threads * Self.launchesPerThread)
    #expect(!bag.isRunning(key: "prefetch"))
  }
}
