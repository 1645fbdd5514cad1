import AutoCancel
import AutoCancelDiagnostics
import AutoCancelTestSupport
import Dispatch
import SeededRandom
import Testing

/// The account is shared by every test of the process, running in parallel: each test uses
/// labels of its own and reads only their counts.
@Suite("The account of what bags did", timeLimit(minutes: 1))
struct CancelBagStatisticsTests {
  init() { AutoCancelDiagnostics.enable() }

  struct Failure: Error {}

  /// The account of `label`'s bags.
  private func account(_ label: String) -> CancelBagStatistics {
    CancelBagStatistics.current(label: label)
  }

  /// The account of `label`'s bags after `body` used a bag labelled so and released it.
  private func account(
    _ label: String, afterABagThat body: (CancelBag) -> Void
  ) -> CancelBagStatistics {
    body(CancelBag(label: label))
    return account(label)
  }

  @Test("counts nothing while the bag is open, and everything once it is released")
  func countedWhenTheBagEnds() {
    let label = "account-when"
    let counted = account(label) { bag in
      bag.add(RecordingWork()).finish()
      bag.add(RecordingWork()).cancel()
      bag.add(RecordingWork())
      #expect(account(label) == CancelBagStatistics())
    }
    #expect(counted.registered == 3)
    #expect(counted.finished == 1)
    #expect(counted.cancelled == 2)
    #expect(counted.ended == counted.registered)
  }

  @Test("counts work that finished, failed, and threw a cancellation apart")
  func outcomes() async {
    let label = "account-outcomes"
    do {
      let bag = CancelBag(label: label)
      _ = await bag.task { 1 }.value
      _ = await bag.task { throw Failure() }.result
      _ = await bag.task { throw CancellationError() }.result
      let cancelled = bag.task { try await Task.sleep(nanoseconds: 60_000_000_000) }
      bag.cancelAll()
      _ = await cancelled.result
      await waitUntil("the tasks left the bag") { bag.count == 0 }
    }
    let counted = account(label)
    #expect(counted.registered == 4)
    #expect(counted.finished == 2, "a task that throws CancellationError finishes")
    #expect(counted.failed == 1)
    #expect(counted.cancelled == 1, "a task cancelled by the bag is not also a failure")
  }

  /// How to cancel one piece of work by `trigger`, and the reason it is cancelled with.
  private func cancelOne(
    by trigger: CancelBagStatistics.Trigger, label: String
  ) async -> CancelBagStatistics.Reason {
    let bag = CancelBag(label: label)
    // One item that finishes beside the one cancelled, so that the bag ends with nothing.
    bag.add(RecordingWork()).finish()
    switch trigger {
    case .bagReleased:
      bag.add(RecordingWork())
      return .ownerGone
    case .cancelAll:
      bag.add(RecordingWork())
      bag.cancelAll(reason: .custom("tab switched"))
      return .custom
    case .end:
      bag.add(RecordingWork())
      bag.end()
      return .explicit
    case .registration:
      bag.add(RecordingWork()).cancel(reason: .linkEnded)
      return .linkEnded
    case .key:
      bag.add(RecordingWork(), key: "k")
      bag.cancel(key: "k", reason: .parentEnded)
      return .parentEnded
    case .keyPolicy:
      bag.add(RecordingWork(), key: "k")
      bag.add(RecordingWork(), key: "k").finish()  // registered and finished: counted below
      return .replaced
    case .deadline:
      guard #available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *) else {
        bag.add(RecordingWork()).cancel(reason: .timedOut)  // the same count, older systems
        return .timedOut
      }
      let clock = ManualClock()
      let work = RecordingWork()
      bag.add(work).cancel(after: .seconds(1), clock: clock)
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(1))
      _ = await work.cancellation()
      return .timedOut
    case .addedAfterEnd:
      bag.end()
      bag.add(RecordingWork())
      return .explicit
    }
  }

  @Test(
    "counts a cancellation under its reason and its trigger",
    arguments: CancelBagStatistics.Trigger.allCases)
  func eachTrigger(_ trigger: CancelBagStatistics.Trigger) async {
    let label = "account-trigger-\(trigger)"
    let reason = await cancelOne(by: trigger, label: label)
    let counted = account(label)
    if trigger == .deadline, counted.cancelledByTrigger[.deadline] == nil {
      // Older systems: cancelled by its registration instead (see `cancelOne`).
      #expect(counted.cancelledByTrigger == [.registration: 1])
      return
    }
    // The item that finished, the one cancelled, and the newer one that replaced it.
    let registered = trigger == .keyPolicy ? 3 : 2
    #expect(counted.registered == registered)
    #expect(counted.finished == registered - 1)
    #expect(counted.failed == 0)
    #expect(counted.cancelledByReason == [reason: 1])
    #expect(counted.cancelledByTrigger == [trigger: 1])
  }

  @Test("counts a bag's deadline as a deadline that ends it")
  @available(macOS 13.0, iOS 16.0, tvOS 16.0, watchOS 9.0, *)
  func bagDeadline() async {
    let label = "account-bag-deadline"
    let clock = ManualClock()
    let work = RecordingWork()
    do {
      let bag = CancelBag(label: label)
      bag.add(work)
      bag.setDeadline(after: .seconds(1), clock: clock)
      await clock.waitForSleepers(1)
      clock.advance(by: .seconds(1))
      _ = await work.cancellation()
      #expect(account(label).cancelledByTrigger == [.deadline: 1])
    }
    #expect(account(label).cancelledByReason == [.timedOut: 1])
  }

  @Test("counts nothing for a launch refused by ignoreNew: it never started")
  func refusedLaunch() async {
    let label = "account-refused-launch"
    let log = OperationLog()
    do {
      let bag = CancelBag(label: label)
      let first = bag.task(key: "save", policy: .ignoreNew, operation: log.operation("first"))
      await log.waitUntilStarted("first")
      let refused = bag.task(key: "save", policy: .ignoreNew, operation: log.operation("refused"))
      #expect(refused == nil)
      log.release("first")
      _ = try? await first?.value
    }
    let counted = account(label)
    #expect(counted.registered == 1)
    #expect(counted.finished == 1)
    #expect(counted.cancelledByReason.isEmpty)
    #expect(counted.cancelledByTrigger.isEmpty)
    #expect(!log.hasStarted("refused"))
  }

  @Test("counts a duplicate refused by ignoreNew as registered and cancelled")
  func refusedDuplicate() {
    let counted = account("account-duplicate") { bag in
      let first = bag.add(RecordingWork(), key: "save", policy: .ignoreNew)
      let duplicate = RecordingWork()
      bag.add(duplicate, key: "save", policy: .ignoreNew)
      #expect(duplicate.reasons == [.duplicate])
      first.finish()
    }
    #expect(counted.registered == 2)
    #expect(counted.finished == 1)
    #expect(counted.cancelledByReason == [.duplicate: 1])
    #expect(counted.cancelledByTrigger == [.keyPolicy: 1])
  }

  @Test("counts custom reasons together, whatever their text")
  func customReasons() {
    let counted = account("account-custom") { bag in
      bag.add(RecordingWork())
      bag.cancelAll(reason: .custom("signed out"))
      bag.add(RecordingWork()).cancel(reason: .custom("low memory"))
    }
    #expect(counted.cancelledByReason == [.custom: 2])
    #expect(CancelBagStatistics.Reason(.custom("anything")) == .custom)
    #expect(CancelBagStatistics.Reason(.timedOut) == .timedOut)
  }

  @Test("counts a bag that ended once, whatever is done with it afterwards")
  func countedOnce() {
    let label = "account-once"
    var bag: CancelBag? = CancelBag(label: label)
    let registration = bag!.add(RecordingWork())
    bag!.add(RecordingWork()).finish()
    bag!.end()
    let atEnd = account(label)
    #expect(atEnd.registered == 2)
    #expect(atEnd.cancelledByTrigger == [.end: 1])
    bag!.end(reason: .custom("again"))
    bag!.cancelAll()
    registration.cancel()
    registration.finish()
    #expect(account(label) == atEnd)
    bag!.add(RecordingWork())
    let afterAdd = account(label)
    #expect(afterAdd.since(atEnd).registered == 1)
    #expect(afterAdd.since(atEnd).cancelledByTrigger == [.addedAfterEnd: 1])
    bag = nil
    #expect(account(label) == afterAdd, "released after it ended: nothing new to count")
  }

  @Test("counts a child's work under the child's label, and never the link between them")
  func childAndLinkedBags() {
    let parentLabel = "account-parent"
    let childLabel = "account-child"
    let linkedLabel = "account-linked"
    do {
      let parent = CancelBag(label: parentLabel)
      let child = CancelBag(parent: parent, label: childLabel)
      let linked = CancelBag(linkedTo: [parent], label: linkedLabel)
      parent.add(RecordingWork()).finish()
      child.add(RecordingWork())
      linked.add(RecordingWork())
      parent.end()
    }
    let parent = account(parentLabel)
    #expect(parent.registered == 1)
    #expect(parent.finished == 1)
    #expect(account(childLabel).cancelledByReason == [.parentEnded: 1])
    #expect(account(childLabel).cancelledByTrigger == [.end: 1])
    #expect(account(linkedLabel).cancelledByReason == [.linkEnded: 1])
  }

  @Test("reads each label apart, with bags without a label under nil")
  func byLabel() {
    let first = "account-by-label-1"
    let second = "account-by-label-2"
    let unlabelledBefore = CancelBagStatistics.current(label: nil)
    let totalBefore = CancelBagStatistics.current
    do {
      let one = CancelBag(label: first)
      let two = CancelBag(label: second)
      let none = CancelBag()
      one.add(RecordingWork())
      for _ in 0..<2 { two.add(RecordingWork()).finish() }
      for _ in 0..<3 { none.add(RecordingWork()) }
    }
    let byLabel = CancelBagStatistics.byLabel
    #expect(byLabel[first] == account(first))
    #expect(byLabel[second] == account(second))
    #expect(account(first).registered == 1 && account(first).cancelled == 1)
    #expect(account(second).registered == 2 && account(second).finished == 2)
    // Other tests end unlabelled bags meanwhile: at least ours were added.
    let unlabelled = CancelBagStatistics.current(label: nil).since(unlabelledBefore)
    #expect(unlabelled.cancelledByTrigger[.bagReleased, default: 0] >= 3)
    #expect(byLabel[nil] != nil)
    #expect(CancelBagStatistics.current.since(totalBefore).registered >= 6)
  }

  @Test("subtracts an earlier reading count by count")
  func since() {
    let label = "account-since"
    let before = account(label)
    let between = account(label) { bag in
      bag.add(RecordingWork()).finish()
      bag.add(RecordingWork())
    }
    let after = account(label) { bag in
      bag.add(RecordingWork(), key: "k")
      bag.add(RecordingWork(), key: "k").finish()
    }
    let second = after.since(between)
    #expect(second.registered == 2)
    #expect(second.finished == 1)
    #expect(second.cancelledByTrigger == [.keyPolicy: 1])
    #expect(between.since(before).cancelledByTrigger == [.bagReleased: 1])
    #expect(after.since(after) == CancelBagStatistics())
    #expect(after.since(CancelBagStatistics()) == after)
  }

  @Test("describes its counts in one line")
  func description() {
    let counted = account("account-description") { bag in
      bag.add(RecordingWork()).finish()
      bag.add(RecordingWork(), key: "k")
      bag.add(RecordingWork(), key: "k")
    }
    #expect(
      counted.description
        == "registered 3, finished 1, failed 0, cancelled 2 (owner gone 1, replaced 1; "
        + "bag released 1, key policy 1)")
    #expect(
      CancelBagStatistics().description == "registered 0, finished 0, failed 0, cancelled 0")
  }

  @Test(
    "adds up exactly the work of bags ending on many threads at once",
    arguments: TestSeed.fresh(count: 2))
  func concurrentBags(seed: UInt64) {
    enum Ending: CaseIterable { case finish, cancel, leave }
    struct Plan { var label: String; var endings: [Ending] }
    var generator = SeededGenerator(seed: seed)
    let labels = (0..<4).map { "account-race-\(seed)-\($0)" }
    let plans = (0..<400).map { _ in
      Plan(
        label: labels[generator.below(labels.count)],
        endings: (0..<generator.below(8)).map { _ in
          Ending.allCases[generator.below(Ending.allCases.count)]
        })
    }
    DispatchQueue.concurrentPerform(iterations: plans.count) { index in
      let bag = CancelBag(label: plans[index].label)
      for ending in plans[index].endings {
        let registration = bag.add(RecordingWork())
        switch ending {
        case .finish: registration.finish()
        case .cancel: registration.cancel()
        case .leave: break
        }
      }
    }
    for label in labels {
      let endings = plans.filter { $0.label == label }.flatMap(\.endings)
      let counted = account(label)
      let context = Comment(rawValue: "\(label), \(TestSeed.describe(seed))")
      #expect(counted.registered == endings.count, context)
      #expect(counted.finished == endings.filter { $0 == .finish }.count, context)
      #expect(
        counted.cancelledByTrigger[.registration, default: 0]
          == endings.filter { $0 == .cancel }.count, context)
      #expect(
        counted.cancelledByTrigger[.bagReleased, default: 0]
          == endings.filter { $0 == .leave }.count, context)
      #expect(counted.ended == counted.registered, context)
    }
  }
}
