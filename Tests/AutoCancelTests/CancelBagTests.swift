import AutoCancelTestSupport
@testable import AutoCancel
import AutoCancelDiagnostics
import Dispatch
import Testing

@Suite("A CancelBag", timeLimit(minutes: 1))
struct CancelBagTests {
  // MARK: Counting and ending

  @Test("counts the work in flight, and forgets finished work")
  func countsWorkInFlight() {
    let bag = CancelBag()
    let first = bag.add(RecordingWork())
    let second = bag.add(RecordingWork())
    #expect(bag.count == 2)
    first.finish()
    #expect(bag.count == 1)
    second.cancel()
    #expect(bag.count == 0)
  }

  @Test("cancels its work in flight with reason ownerGone when it is deinitialized")
  func deinitCancelsWorkInFlight() {
    let inFlight = RecordingWork()
    let finished = RecordingWork()
    do {
      let bag = CancelBag()
      bag.add(inFlight)
      bag.add(finished).finish()
    }
    #expect(inFlight.reasons == [.ownerGone])
    #expect(finished.cancelCount == 0)
  }

  @Test("ends every item exactly once: finished items are never cancelled, the rest once")
  func endsEveryItemExactlyOnce() {
    let bag = CancelBag()
    let probes = (0..<10).map { RecordingWork("\($0)") }
    let registrations = probes.map { bag.add($0) }
    for index in stride(from: 0, to: 10, by: 2) { registrations[index].finish() }
    bag.cancelAll()
    bag.end()
    for (index, probe) in probes.enumerated() {
      #expect(probe.cancelCount == (index.isMultiple(of: 2) ? 0 : 1), "item \(index)")
    }
    #expect(registrations.allSatisfy { !$0.isActive })
  }

  // MARK: Lifetimes

  @Test("never retains its owner: the owner deinitializes and its work is cancelled (ownerGone)")
  func neverRetainsItsOwner() async {
    let probe = RecordingWork()
    var screen: ModelOwner? = ModelOwner()
    let weakScreen = WeakBox(screen)
    screen!.autoCancel(probe)
    let task = await screen!.cancelBag.taskUntilCancelled { CancellationReason.current }
    screen = nil
    #expect(weakScreen.object == nil)
    #expect(probe.reasons == [.ownerGone])
    #expect(await task.value == .ownerGone)
  }

  @Test("is deinitialized while a copy of a registration and a task it launched still exist")
  func registrationsAndTasksDoNotKeepTheBagAlive() async {
    let probe = RecordingWork()
    var bag: CancelBag? = CancelBag()
    let weakBag = WeakBox(bag)
    let registration = bag!.add(probe)
    let copy = registration
    let task = await bag!.taskUntilCancelled { CancellationReason.current }
    bag = nil
    #expect(weakBag.object == nil)
    #expect(!copy.isActive)
    #expect(probe.reasons == [.ownerGone])
    #expect(await task.value == .ownerGone)
  }

  @Test("keeps the work it holds alive until it ends, and releases it then without cancelling")
  func neverDropsALiveRegistration() {
    let bag = CancelBag()
    weak var weakProbe: RecordingWork?
    let registration: CancelRegistration
    do {
      let probe = RecordingWork()
      weakProbe = probe
      registration = bag.add(probe)
    }
    // Churn around it: other work comes and goes, reusing slots.
    for _ in 0..<1000 { bag.add(RecordingWork()).finish() }
    bag.add(RecordingWork()).cancel()
    #expect(weakProbe != nil)
    #expect(registration.isActive)
    #expect(bag.count == 1)
    #expect(bag.snapshot().map(\.workType) == ["RecordingWork"])
    let cancelCount = weakProbe?.cancelCount
    registration.finish()
    #expect(weakProbe == nil)
    #expect(cancelCount == 0)
  }

  // MARK: Ended bags

  @Test("cancels work added after it ended before add returns, with the end reason")
  func addToEndedBagCancelsAtOnce() {
    let bag = CancelBag()
    let reason = CancellationReason.custom("closed")
    bag.end(reason: reason)

    let probe = RecordingWork()
    let registration = bag.add(probe)
    #expect(probe.reasons == [reason])
    #expect(!registration.isActive)

    let value = RecordingWork()
    #expect(!bag.add(RecordingValueWork(value)).isActive)
    #expect(value.reasons == [reason])

    let closureReasons = Protected<[CancellationReason]>([])
    let closure = bag.add { reason in closureReasons.withLock { $0.append(reason) } }
    #expect(closureReasons.current == [reason])
    #expect(!closure.isActive)

    let item = DispatchWorkItem {}
    #expect(!bag.add(item).isActive)
    #expect(item.isCancelled)

    let keyed = RecordingWork()
    #expect(!bag.add(keyed, key: "k", label: "keyed").isActive)
    #expect(keyed.reasons == [reason])
    #expect(bag.count == 0)
  }

  @Test("cancels a DispatchWorkItem it holds when it ends: once cancelled, the item never runs")
  func cancelledDispatchWorkItemNeverRuns() {
    let ran = Protected(false)
    let item = DispatchWorkItem { ran.withLock { $0 = true } }
    var owner: ModelOwner? = ModelOwner()
    owner!.cancelBag.add(item, label: "save")
    owner = nil
    #expect(item.isCancelled)
    let queue = DispatchQueue(label: "CancelBagTests.save")
    queue.async(execute: item)
    queue.sync {}  // the serial queue has drained: the item had its chance to run
    #expect(ran.current == false)
  }

  @Test("reports whether and why it ended")
  func reportsEndState() {
    let bag = CancelBag()
    #expect(!bag.hasEnded)
    #expect(bag.endReason == nil)
    bag.cancelAll()
    #expect(!bag.hasEnded)
    bag.end(reason: .timedOut)
    #expect(bag.hasEnded)
    #expect(bag.endReason == .timedOut)
  }

  @Test("makes no core until something changes it: reading it and cancelling nothing make none")
  func makesItsCoreOnFirstChange() {
    // Without an instrument, which other suites may install for the whole process: a bag that
    // has one makes its core at once, to tell it of the bag.
    let bag = CancelBag(label: nil, switches: DiagnosticSwitches())
    #expect(bag.count == 0 && !bag.hasEnded && bag.endReason == nil)
    #expect(!bag.isRunning(key: "k") && bag.itemSnapshots().isEmpty)
    bag.cancelAll()
    bag.cancel(key: "k")
    #expect(bag.madeCore == nil)
    let registration = bag.add(RecordingWork())
    #expect(bag.madeCore == registration.core)
  }

  @Test("made by one of two threads racing to add first, holds the work of both")
  func threadsRacingToAddFirstShareOneCore() async {
    for _ in 0..<1_000 {
      // Without an instrument, which would make the core as the bag is made.
      let bag = CancelBag(label: nil, switches: DiagnosticSwitches())
      let works = [RecordingWork(), RecordingWork()]
      let arrived = Protected(0)
      let cores = Protected<[BagCore]>([])
      await onThreads(works.count) { index in
        // Both threads spin until both are here, so that their first adds meet.
        arrived.withLock { $0 += 1 }
        while arrived.current < works.count {}
        let core = bag.add(works[index]).core
        cores.withLock { $0.append(core) }
      }
      #expect(bag.count == works.count)
      #expect(cores.current.allSatisfy { $0 == bag.madeCore })
      bag.end(reason: .explicit)
      #expect(works.allSatisfy { $0.reasons == [.explicit] })
    }
  }

  @Test("keeps the first reason when it is ended twice, and cancels nothing the second time")
  func endIsIdempotent() {
    let (bag, probe, _) = bagHoldingWork()
    bag.end(reason: .custom("first"))
    bag.end(reason: .custom("second"))
    #expect(bag.endReason == .custom("first"))
    #expect(probe.reasons == [.custom("first")])
    let late = RecordingWork()
    bag.add(late)
    #expect(late.reasons == [.custom("first")])
  }

  @Test("stays usable after cancelAll: later work is kept until it ends")
  func cancelAllKeepsTheBagUsable() {
    let (bag, before, _) = bagHoldingWork()
    bag.cancelAll(reason: .custom("tab switched"))
    #expect(before.reasons == [.custom("tab switched")])
    let after = RecordingWork()
    let registration = bag.add(after)
    #expect(registration.isActive)
    #expect(bag.count == 1)
    #expect(after.cancelCount == 0)
    bag.cancelAll()
    #expect(after.reasons == [.explicit])
  }

  @Test("keeps cancelAll idempotent: a second call cancels nothing twice")
  func cancelAllTwice() {
    let (bag, probe, _) = bagHoldingWork()
    bag.cancelAll()
    bag.cancelAll()
    #expect(probe.cancelCount == 1)
  }

  // MARK: Order

  @Test(
    "cancels oldest first, in the order work was added, even after slots were reused",
    arguments: BagEnding.allCases)
  func cancelsOldestFirst(ending: BagEnding) {
    let log = CancelOrderLog()
    var bag: CancelBag? = CancelBag()
    var registrations: [String: CancelRegistration] = [:]
    for index in 0..<10 { registrations["a\(index)"] = bag!.add(log.probe("a\(index)")) }
    // Free slots out of order, so that later work lands in earlier slots.
    for name in ["a7", "a2", "a5", "a0"] { registrations[name]!.finish() }
    for index in 0..<6 { bag!.add(log.probe("b\(index)")) }
    registrations["a3"]!.cancel(reason: .custom("single"))
    let expected = ["a3", "a1", "a4", "a6", "a8", "a9", "b0", "b1", "b2", "b3", "b4", "b5"]
    ending.apply(to: &bag)
    #expect(log.order == expected)
    _ = bag
  }

  // MARK: Misuse

  @Test("makes two registrations when the same work is added twice, and cancels it twice")
  func addingTheSameWorkTwice() {
    let (bag, probe, first) = bagHoldingWork()
    let second = bag.add(probe)
    #expect(first != second)
    #expect(bag.count == 2)
    bag.cancelAll()
    #expect(probe.reasons == [.explicit, .explicit])

    let finishedOnce = RecordingWork()
    let kept = bag.add(finishedOnce)
    bag.add(finishedOnce).finish()
    #expect(kept.isActive)
    bag.end()
    #expect(finishedOnce.cancelCount == 1)
  }

  @Test("does nothing when a registration is finished or cancelled after its bag ended")
  func endingARegistrationAfterTheBagEnded() {
    let (bag, probe, registration) = bagHoldingWork()
    bag.end(reason: .custom("closed"))
    registration.finish()
    registration.cancel()
    #expect(!registration.isActive)
    #expect(probe.reasons == [.custom("closed")])
  }
}

/// Its own suite: a million cycles of an unoptimized debug build take seconds, more on a
/// loaded machine, and it is synchronous, so it gets a roomier time limit than the rest.
@Suite("A long-lived CancelBag", timeLimit(minutes: 5))
struct CancelBagMemoryTests {
  @Test("leaves no trace of 1,000,000 finished items: count, snapshot and memory stay flat")
  func finishedWorkLeavesNoTrace() async {
    let bag = CancelBag()
    let cycles = StressScale.millionCycles
    let work = RecordingWork()
    let largest = Protected(0)
    // A thread of its own, not the cooperative pool: seconds of synchronous work there would
    // hold up every async test running alongside.
    await onThreads(1) { _ in
      var largestTable = 0
      for index in 0..<cycles {
        // One in 32 with a label and a key: their details must leave with them too.
        if index % 32 == 0 {
          bag.add(work, key: index % 3, label: "cycle").finish()
        } else {
          bag.add(work).finish()
        }
        if index % 1024 == 0 { largestTable = max(largestTable, bag.slotCount) }
      }
      largest.withLock { $0 = largestTable }
    }
    let largestTable = largest.withLock { $0 }
    #expect(bag.count == 0)
    #expect(bag.snapshot().isEmpty)
    #expect(work.cancelCount == 0)
    // Memory is bounded by work in flight, not by history: the table never grew beyond one
    // slot, and no label, key or timer record was left behind. (The bag's own storage, not
    // the process's resident memory: tests running alongside allocate too.)
    #expect(largestTable <= 1)
    #expect(bag.slotCount <= 1)
    #expect(bag.sideRecordCount == 0)
  }
}

@Suite("A CancelBag's keys (latest wins)")
struct CancelBagKeyTests {
  @Test("cancels the work under a key with reason replaced when newer work takes the key")
  func newerWorkReplacesOlder() {
    let bag = CancelBag()
    let older = RecordingWork()
    let newer = RecordingWork()
    let olderRegistration = bag.add(older, key: "search")
    let newerRegistration = bag.add(newer, key: "search")
    #expect(older.reasons == [.replaced])
    #expect(!olderRegistration.isActive)
    #expect(newerRegistration.isActive)
    #expect(newer.cancelCount == 0)
    #expect(bag.count == 1)
  }

  @Test("keeps the successor when the replaced work's stale registration is finished or cancelled")
  func staleRegistrationDoesNotEvictTheSuccessor() {
    let bag = CancelBag()
    let older = bag.add(RecordingWork(), key: 1)
    let newer = RecordingWork()
    let newerRegistration = bag.add(newer, key: 1)
    older.finish()
    older.cancel()
    #expect(newerRegistration.isActive)
    #expect(newer.cancelCount == 0)
    // The key still names the successor: a third item replaces it.
    let third = bag.add(RecordingWork(), key: 1)
    #expect(newer.reasons == [.replaced])
    #expect(third.isActive)
  }

  @Test("lets work under different keys, and work without a key, coexist")
  func differentKeysCoexist() {
    let bag = CancelBag()
    let probes = [RecordingWork(), RecordingWork(), RecordingWork(), RecordingWork()]
    bag.add(probes[0], key: "a")
    bag.add(probes[1], key: "b")
    bag.add(probes[2], key: 7)
    bag.add(probes[3])
    #expect(bag.count == 4)
    #expect(probes.allSatisfy { $0.cancelCount == 0 })
  }

  @Test("frees a key when its work finishes: newer work under it replaces nothing")
  func finishedWorkFreesItsKey() {
    let bag = CancelBag()
    let first = RecordingWork()
    bag.add(first, key: "k").finish()
    let second = RecordingWork()
    bag.add(second, key: "k")
    #expect(first.cancelCount == 0)
    #expect(second.cancelCount == 0)
    #expect(bag.count == 1)
  }
}

@Suite("A CancelBag whose work calls back into it from cancel()", timeLimit(minutes: 1))
struct CancelBagReentrancyTests {
  /// What triggers the cancellation of the re-entrant work.
  enum Trigger: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case cancelAll, end, registrationCancel, keyReplacement
    var testDescription: String { rawValue }
  }

  @Test(
    "neither deadlocks nor crashes, and still ends every item exactly once",
    arguments: Trigger.allCases)
  func reentrantCancelIsSafe(trigger: Trigger) {
    let bag = CancelBag()
    let finishedByCallback = RecordingWork("finished by callback")
    let cancelledByCallback = RecordingWork("cancelled by callback")
    let lateProbes = Protected<[RecordingWork]>([])
    let others = Protected<[CancelRegistration]>([])
    let calls = Protected(0)
    let reentrant = RecordingWork("reentrant") { _, _ in
      // Everything a callback might do with its bag, from inside `cancel`.
      let late = RecordingWork("late")
      lateProbes.withLock { $0.append(late) }
      bag.add(late, key: "reentrant")
      _ = bag.count
      _ = bag.snapshot()
      _ = bag.debugDescription
      _ = bag.hasEnded
      let registrations = others.current
      registrations[0].finish()
      registrations[1].cancel(reason: .custom("by callback"))
      _ = registrations.map(\.isActive)
      bag.cancelAll(reason: .custom("nested cancelAll"))
      bag.end(reason: .custom("nested end"))
      calls.withLock { $0 += 1 }
    }
    let reentrantRegistration = bag.add(reentrant, key: "reentrant")
    others.withLock {
      $0 = [bag.add(finishedByCallback), bag.add(cancelledByCallback)]
    }

    switch trigger {
    case .cancelAll: bag.cancelAll()
    case .end: bag.end()
    case .registrationCancel: reentrantRegistration.cancel()
    case .keyReplacement: bag.add(RecordingWork("replacement"), key: "reentrant")
    }

    #expect(calls.current == 1)
    #expect(reentrant.cancelCount == 1)
    #expect(bag.hasEnded)
    #expect(bag.count == 0)
    // The other items ended once each. cancelAll and end take every item out before the
    // first cancel runs, so the callback's finish comes too late and the item is cancelled;
    // a single cancel leaves it in the bag, where the finish takes effect.
    let expectedCancels = trigger == .cancelAll || trigger == .end ? 1 : 0
    #expect(finishedByCallback.cancelCount == expectedCancels)
    #expect(cancelledByCallback.cancelCount == 1)
    for late in lateProbes.current { #expect(late.cancelCount == 1) }
    if trigger == .registrationCancel || trigger == .keyReplacement {
      // Still in the bag when the callback ran: its finish took effect.
      #expect(finishedByCallback.cancelCount == 0)
      #expect(cancelledByCallback.reasons == [.custom("by callback")])
    }
  }

  @Test("neither deadlocks nor crashes when the bag's deinit cancels work that calls back")
  func reentrantCancelDuringDeinit() {
    let finishedByCallback = RecordingWork("finished by callback")
    let cancelledByCallback = RecordingWork("cancelled by callback")
    let others = Protected<[CancelRegistration]>([])
    let observed = Protected<[Bool]>([])
    let reentrant = RecordingWork("reentrant") { _, _ in
      // The bag's front is going away; what work holds is its registrations.
      let registrations = others.current
      observed.withLock { $0 = registrations.map(\.isActive) }
      registrations[0].finish()
      registrations[1].cancel()
      registrations[2].cancel()
    }
    do {
      let bag = CancelBag()
      let own = bag.add(reentrant)
      others.withLock {
        $0 = [bag.add(finishedByCallback), bag.add(cancelledByCallback), own]
      }
    }
    #expect(observed.current == [false, false, false])
    #expect(reentrant.reasons == [.ownerGone])
    #expect(finishedByCallback.reasons == [.ownerGone])
    #expect(cancelledByCallback.reasons == [.ownerGone])
  }

  @Test("keeps work added by a callback during cancelAll, and cancels it on the next end")
  func workAddedDuringCancelAllIsKept() {
    let bag = CancelBag()
    let late = RecordingWork("late")
    bag.add(RecordingWork { _, _ in bag.add(late) })
    bag.cancelAll()
    #expect(late.cancelCount == 0)
    #expect(bag.count == 1)
    bag.end()
    #expect(late.reasons == [.explicit])
  }

  @Test("cancels work added by a callback during end before add returns")
  func workAddedDuringEndIsCancelled() {
    let bag = CancelBag()
    let late = RecordingWork("late")
    let activeAfterAdd = Protected<Bool?>(nil)
    bag.add(
      RecordingWork { _, _ in
        let registration = bag.add(late)
        activeAfterAdd.withLock { $0 = registration.isActive }
      })
    bag.end(reason: .custom("closing"))
    #expect(activeAfterAdd.current == false)
    #expect(late.reasons == [.custom("closing")])
  }
}
