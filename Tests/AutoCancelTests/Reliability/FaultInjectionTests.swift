import AutoCancelTestSupport
import AutoCancel
import AutoCancelDiagnostics
import Dispatch
import Foundation
import Testing

/// Work that misbehaves in every way the contract allows: blocks in `cancel`, calls back into
/// its bag, cancels other work, lets the bag's owner go, or hops to the main thread.
@Suite(
  "A bag stays correct when its work misbehaves while being cancelled", timeLimit(minutes: 1))
struct FaultInjectionTests {
  // MARK: Blocking cancels

  @Test("other threads add, finish and cancel on a bag while one cancel blocks inside cancelAll")
  func otherThreadsUseTheBagWhileACancelBlocksInCancelAll() async throws {
    let bag = CancelBag()
    let (entered, release) = (Gate(), Gate())
    let before = ItemRecord(id: 0)
    let blocker = ItemRecord(id: 1)
    let after = ItemRecord(id: 2)
    bag.add(RecordedWork(before))
    bag.add { reason in
      blocker.cancelled(reason)
      entered.open()
      release.wait()
    }
    bag.add(RecordedWork(after))

    async let sweep: Void = onNewThread { bag.cancelAll(reason: .custom("sweep")) }
    await entered.wait()

    // The sweep is stuck in the blocker's cancel, on its own thread. Its items are out of
    // the bag already, and the bag serves this thread without waiting for the blocker.
    #expect(bag.count == 0)
    let finished = bag.add(RecordedWork(ItemRecord(id: 3)))
    #expect(finished.isActive && bag.count == 1)
    finished.finish()
    #expect(!finished.isActive && bag.count == 0)
    let cancelledHere = ItemRecord(id: 4)
    bag.add(RecordedWork(cancelledHere)).cancel()
    #expect(cancelledHere.reasons == [.explicit])
    let replacedHere = ItemRecord(id: 5)
    bag.add(RecordedWork(replacedHere), key: "k")
    let kept = bag.add(RecordedWork(ItemRecord(id: 6)), key: "k", label: "kept")
    #expect(replacedHere.reasons == [.replaced])
    #expect(bag.snapshot().map(\.label) == ["kept"])
    let secondSweep = ItemRecord(id: 7)
    bag.add(RecordedWork(secondSweep))
    bag.cancelAll(reason: .custom("second sweep"))
    #expect(secondSweep.reasons == [.custom("second sweep")])
    #expect(!kept.isActive)

    // All of that completed while the blocker was still blocked, holding the first sweep's
    // later items: they are cancelled after it, oldest first, by the sweep's thread.
    #expect(!release.hasOpened)
    #expect(before.reasons == [.custom("sweep")])
    #expect(blocker.reasons == [.custom("sweep")])
    #expect(after.cancelCount == 0)
    release.open()
    await sweep
    #expect(after.reasons == [.custom("sweep")])
    #expect(bag.count == 0)
  }

  @Test("work added while a cancel blocks inside end is cancelled at once, on the adding thread")
  func workAddedWhileEndBlocksIsCancelledAtOnce() async throws {
    let bag = CancelBag()
    let (entered, release) = (Gate(), Gate())
    let blocker = ItemRecord(id: 0)
    bag.add { reason in
      blocker.cancelled(reason)
      entered.open()
      release.wait()
    }
    async let ending: Void = onNewThread { bag.end(reason: .custom("closed")) }
    await entered.wait()

    #expect(bag.hasEnded)
    let late = ItemRecord(id: 1)
    let registration = bag.add(RecordedWork(late))
    #expect(late.reasons == [.custom("closed")])
    #expect(!registration.isActive)
    #expect(!release.hasOpened)
    release.open()
    await ending
    #expect(blocker.reasons == [.custom("closed")])
  }

  @Test("while the owner's deinit blocks in a cancel, the bag's registrations stay usable")
  func registrationsStayUsableWhileTheOwnersDeinitBlocks() async throws {
    let (entered, release) = (Gate(), Gate())
    let owner = Protected<ModelOwner?>(ModelOwner())
    let weakOwner = WeakBox(owner.current)
    let records = (0..<3).map { ItemRecord(id: $0) }
    let registrations = owner.withLock { owner in
      [
        owner!.autoCancel(RecordedWork(records[0])),
        owner!.cancelBag.add { reason in
          records[1].cancelled(reason)
          entered.open()
          release.wait()
        },
        owner!.autoCancel(RecordedWork(records[2])),
      ]
    }
    async let drop: Void = onNewThread {
      owner.dropOwner()
    }
    await entered.wait()

    #expect(weakOwner.object == nil)
    for registration in registrations {
      #expect(!registration.isActive)
      registration.finish()
      registration.cancel()
    }
    #expect(records[0].reasons == [.ownerGone])
    #expect(records[2].cancelCount == 0)
    release.open()
    await drop
    #expect(records.map(\.reasons) == [[.ownerGone], [.ownerGone], [.ownerGone]])
  }

  @Test("a registration cancelled on one thread while cancelAll runs on another ends once")
  func concurrentCancelOfABlockedItemEndsItOnce() async throws {
    let bag = CancelBag()
    let (entered, release) = (Gate(), Gate())
    let blocker = ItemRecord(id: 0)
    let registration = bag.add { reason in
      blocker.cancelled(reason)
      entered.open()
      release.wait()
    }
    async let sweep: Void = onNewThread { bag.cancelAll() }
    await entered.wait()
    registration.cancel(reason: .custom("again"))
    registration.finish()
    release.open()
    await sweep
    #expect(blocker.reasons == [.explicit])
  }

  // MARK: Re-entrant cancels

  @Test("a cancel may add to its bag during cancelAll, and the new work stays in flight")
  func cancelAddsDuringCancelAll() {
    let bag = CancelBag()
    let added = Protected<CancelRegistration?>(nil)
    let record = ItemRecord(id: 0)
    bag.add { _ in
      added.withLock { $0 = bag.add(RecordedWork(record)) }
    }
    bag.cancelAll()
    #expect(added.current?.isActive == true)
    #expect(bag.count == 1)
    #expect(record.cancelCount == 0)
    bag.end()
    #expect(record.reasons == [.explicit])
  }

  @Test("a cancel that adds to its bag during end sees the new work cancelled before add returns")
  func cancelAddsDuringEnd() {
    let bag = CancelBag()
    let record = ItemRecord(id: 0)
    let seenInside = Protected<[CancellationReason?]>([])
    bag.add { _ in
      let registration = bag.add(RecordedWork(record))
      seenInside.withLock { $0 = record.reasons + [registration.isActive ? .explicit : nil] }
    }
    bag.end(reason: .custom("done"))
    #expect(seenInside.current == [.custom("done"), nil])
    #expect(bag.count == 0)
  }

  @Test("a cancel may call cancelAll, end, snapshot and count of its own bag")
  func cancelCallsBackIntoItsBag() {
    let bag = CancelBag()
    let first = ItemRecord(id: 0)
    let second = ItemRecord(id: 1)
    let readings = Protected<[Int]>([])
    bag.add { reason in
      first.cancelled(reason)
      readings.withLock { $0 += [bag.count, bag.snapshot().count] }
      bag.cancelAll(reason: .custom("nested sweep"))
      bag.end(reason: .custom("nested end"))
      readings.withLock { $0 += [bag.count] }
    }
    bag.add(RecordedWork(second))
    bag.cancelAll(reason: .custom("outer"))
    // The outer sweep took both items out before cancelling either: the nested calls find
    // nothing, and the second item still hears the outer reason, once.
    #expect(first.reasons == [.custom("outer")])
    #expect(second.reasons == [.custom("outer")])
    #expect(readings.current == [0, 0, 0])
    #expect(bag.endReason == .custom("nested end"))
  }

  @Test("a cancel may cancel or finish its own and other registrations without a second cancel")
  func cancelCancelsOtherRegistrations() {
    let bag = CancelBag()
    let records = (0..<4).map { ItemRecord(id: $0) }
    let registrations = Protected<[CancelRegistration]>([])
    let firstRegistration = bag.add { reason in
      records[0].cancelled(reason)
      let all = registrations.current
      all[0].cancel()  // itself
      all[0].finish()
      all[1].cancel(reason: .custom("from first"))  // still in the bag when cancelled alone
      all[2].finish()
    }
    registrations.withLock { $0 = [firstRegistration] }
    for record in records.dropFirst() {
      let registration = bag.add(RecordedWork(record))
      registrations.withLock { $0.append(registration) }
    }
    // Cancelled alone: the others are still in the bag and the cancel ends them.
    firstRegistration.cancel()
    #expect(records[0].reasons == [.explicit])
    #expect(records[1].reasons == [.custom("from first")])
    #expect(records[2].cancelCount == 0)
    #expect(records[3].cancelCount == 0)
    #expect(bag.count == 1)
    bag.end()
    #expect(records[3].reasons == [.explicit])
    #expect(records.map(\.cancelCount) == [1, 1, 0, 1])
  }

  @Test("a replaced item's cancel may add under the same key; each item ends once")
  func replacedCancelAddsUnderTheSameKey() {
    let bag = CancelBag()
    let records = (0..<3).map { ItemRecord(id: $0) }
    let third = Protected<CancelRegistration?>(nil)
    bag.add(key: "k") { reason in
      records[0].cancelled(reason)
      third.withLock { $0 = bag.add(RecordedWork(records[2]), key: "k") }
    }
    let second = bag.add(RecordedWork(records[1]), key: "k")
    #expect(records[0].reasons == [.replaced])
    #expect(records[1].reasons == [.replaced])
    #expect(!second.isActive)
    #expect(third.current?.isActive == true)
    #expect(bag.count == 1)
  }

  // MARK: Owners going away inside cancels

  @Test("an owner's deinit may run inside another bag's cancel")
  func ownerDeinitRunsInsideAnotherBagsCancel() {
    let holder = Protected<ModelOwner?>(ModelOwner())
    let weakOwner = WeakBox(holder.current)
    let records = (0..<2).map { ItemRecord(id: $0) }
    holder.withLock { owner in
      for record in records { owner!.autoCancel(RecordedWork(record)) }
    }
    let other = CancelBag()
    other.add { _ in holder.dropOwner() }
    other.cancelAll()
    #expect(weakOwner.object == nil)
    #expect(records.map(\.reasons) == [[.ownerGone], [.ownerGone]])
  }

  @Test("an owner's deinit may run inside the cancel of one of its own items")
  func ownerDeinitRunsInsideItsOwnItemsCancel() {
    let holder = Protected<ModelOwner?>(ModelOwner())
    let weakOwner = WeakBox(holder.current)
    let records = (0..<3).map { ItemRecord(id: $0) }
    let registration = holder.withLock { owner in
      owner!.autoCancel(RecordedWork(records[0]))
      let registration = owner!.cancelBag.add { reason in
        records[1].cancelled(reason)
        holder.dropOwner()
      }
      owner!.autoCancel(RecordedWork(records[2]))
      return registration
    }
    registration.cancel()
    #expect(weakOwner.object == nil)
    #expect(records.map(\.reasons) == [[.ownerGone], [.explicit], [.ownerGone]])
  }

  @Test("a chain of owners, each dropped by the previous one's cancel, all go, each item once")
  func chainOfOwnersGoesAway() {
    let depth = 64
    let owners = (0..<depth).map { _ in Protected<ModelOwner?>(ModelOwner()) }
    let weakOwners = owners.map { holder in WeakBox(holder.current) }
    let records = (0..<depth).map { ItemRecord(id: $0) }
    for index in 0..<depth {
      let next = index + 1 < depth ? owners[index + 1] : nil
      owners[index].withLock { owner in
        _ = owner!.cancelBag.add { reason in
          records[index].cancelled(reason)
          next?.dropOwner()
        }
      }
    }
    owners[0].dropOwner()
    #expect(weakOwners.allSatisfy { $0.object == nil })
    #expect(records.allSatisfy { $0.reasons == [.ownerGone] })
  }

  // MARK: The main thread

  @Test("a cancel may hop to the main actor and to the main queue")
  func cancelHopsToTheMainThread() async {
    let bag = CancelBag()
    await confirmation("each hop ran once", expectedCount: 2) { hopped in
      let (actorHop, queueHop) = (Gate(), Gate())
      bag.add { _ in
        Task { @MainActor in
          hopped()
          actorHop.open()
        }
      }
      bag.add { _ in
        DispatchQueue.main.async {
          hopped()
          queueHop.open()
        }
      }
      await onNewThread { bag.cancelAll() }
      await actorHop.wait()
      await queueHop.wait()
      #expect(bag.count == 0)
    }
  }

  @Test("a cancel may run code on the main thread that uses the same bag, without deadlock")
  func cancelRunsSynchronouslyOnTheMainThread() async {
    let bag = CancelBag()
    let record = ItemRecord(id: 0)
    let seenOnMain = Protected<[Int]>([])
    bag.add { _ in
      // If the bag's lock were held during cancel, the main thread would block on it here.
      DispatchQueue.main.sync {
        let registration = bag.add(RecordedWork(record))
        seenOnMain.withLock { $0 = [bag.count, registration.isActive ? 1 : 0] }
      }
    }
    await onNewThread { bag.cancelAll() }
    #expect(seenOnMain.current == [1, 1])
    #expect(record.cancelCount == 0)
  }

  @MainActor
  @Test("work is cancelled on the main actor's thread when the main actor releases its owner")
  func mainActorOwnerCancelsOnItsThread() {
    // On Linux the main actor runs on the main queue, which is not always the process's
    // main thread: compare with the thread this test runs on.
    let here = ObjectIdentifier(Thread.current)
    let threads = Protected<[ObjectIdentifier]>([])
    var owner: ModelOwner? = ModelOwner()
    for _ in 0..<3 {
      owner!.cancelBag.add { _ in threads.withLock { $0.append(ObjectIdentifier(Thread.current)) } }
    }
    owner = nil
    _ = owner
    #expect(threads.current == [here, here, here])
  }
}

extension Protected where Value == ModelOwner? {
  /// Takes the owner out and drops it: the only strong reference goes away here, outside the
  /// box's lock, so that the owner's deinit runs in this call.
  func dropOwner() {
    var last = withLock { owner in
      defer { owner = nil }
      return owner
    }
    last = nil
    _ = last
  }
}
