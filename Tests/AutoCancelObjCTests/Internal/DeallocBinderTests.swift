import AutoCancel
import AutoCancelDiagnostics
import Dispatch
import AutoCancelTestSupport
import Testing

@testable import AutoCancelObjC
import SeededRandom

/// Typed work that nothing but the bag keeps: the thin wrapper the original lost.
private final class ThinWrapper: AutoCancellable, Sendable {
  let cancels: Tally
  init(_ cancels: Tally) { self.cancels = cancels }
  func cancel() { cancels.increment() }
}

/// The one strong reference to a test's object, handed to threads through a lock so that
/// releasing it here releases the object here.
private final class Owner: Sendable {
  private let object = Protected<FakeObject?>(FakeObject())

  /// The object, while it is alive.
  var current: FakeObject { object.current! }

  /// Drops the last reference: the object and its holder are released on this thread.
  func release() {
    let last = object.withLock { object in
      defer { object = nil }
      return object
    }
    withExtendedLifetime(last) {}
  }
}

/// Work that racing threads bind to one object at random, kept by kind so that a test can
/// check what the binder did with each.
private final class RandomBinds: Sendable {
  /// The ways a thread binds.
  enum Kind: Sendable {
    /// Class work, left in flight.
    case work
    /// Value work (a struct around a probe), left in flight.
    case valueWork
    /// Class work whose registration is finished at once.
    case finishedWork
    /// An untyped request that the test keeps alive.
    case request
    /// An untyped request that nothing keeps: it goes at once.
    case droppedRequest
  }

  /// Class and value work left in flight.
  let inFlight = Protected<[RecordingWork]>([])
  let finished = Protected<[RecordingWork]>([])
  /// The requests kept alive.
  let requests = Protected<[RespondingRequest]>([])
  let dropped = Tally()
  let deallocated = Tally()

  /// Binds to `object` one piece of work of a kind drawn from `kinds`.
  func bindOne(
    of kinds: [Kind], using random: inout SeededGenerator,
    with binder: DeallocBinder<InMemoryHolderStore, TestCanceller>, to object: FakeObject
  ) {
    switch kinds[random.below(kinds.count)] {
    case .work:
      let probe = RecordingWork()
      binder.bind(probe, to: object)
      inFlight.withLock { $0.append(probe) }
    case .valueWork:
      let probe = RecordingWork()
      binder.bind(RecordingValueWork(probe), to: object)
      inFlight.withLock { $0.append(probe) }
    case .finishedWork:
      let probe = RecordingWork()
      binder.bind(probe, to: object).finish()
      finished.withLock { $0.append(probe) }
    case .request:
      let request = RespondingRequest()
      binder.bindUntyped(request, to: object)
      requests.withLock { $0.append(request) }
    case .droppedRequest:
      binder.bindUntyped(RespondingRequest { [deallocated] in deallocated.increment() }, to: object)
      dropped.increment()
    }
  }
}

@Suite("A dealloc binder", timeLimit(minutes: 2))
struct DeallocBinderTests {
  @Test(
    "attaches exactly one holder when many threads bind to a fresh object at once",
    arguments: TestSeed.seeds([0x5EED_0001, 0xC0FF_EE42, 0xDEAD_BEEF]))
  func attachesOneHolderUnderRaces(seed: UInt64) async {
    let threads = 8
    for round in 0..<40 {
      let binder = makeBinder()
      let owner = Owner()
      let holders = Protected<Set<ObjectIdentifier>>([])
      let binds = RandomBinds()
      let roundSeed = SeededGenerator.derive(seed, round)
      await onThreads(threads) { index in
        var random = SeededGenerator(seed: SeededGenerator.derive(roundSeed, index))
        let object = owner.current
        for _ in 0..<(1 + random.below(4)) {
          binds.bindOne(
            of: [.work, .valueWork, .request], using: &random, with: binder, to: object)
          holders.withLock { _ = $0.insert(ObjectIdentifier(binder.holder(for: object))) }
        }
      }
      let context = "\(TestSeed.describe(seed)), round \(round)"
      #expect(binder.store.attachCount == 1, "\(context)")
      #expect(holders.current.count == 1, "\(context)")
      // A second holder attached by a losing thread would have been released, cancelling.
      #expect(binds.inFlight.current.allSatisfy { $0.cancelCount == 0 }, "\(context)")
      #expect(binds.requests.current.allSatisfy { $0.cancelCount == 0 }, "\(context)")

      owner.release()
      #expect(binds.inFlight.current.allSatisfy { $0.reasons == [.ownerGone] }, "\(context)")
      #expect(binds.requests.current.allSatisfy { $0.cancelCount == 1 }, "\(context)")
    }
  }

  @Test("cancels what is in flight, exactly once, when its object is released")
  func releaseCancelsInFlightWorkOnce() {
    let classWork = RecordingWork()
    let valueWork = RecordingWork()
    let item = DispatchWorkItem {}
    let request = RespondingRequest()
    bindThenRelease(holding: 4) { binder, object in
      binder.bind(classWork, to: object)
      binder.bind(RecordingValueWork(valueWork), to: object)
      binder.bind(item, to: object)
      binder.bindUntyped(request, to: object)
      #expect(!item.isCancelled && classWork.cancelCount == 0 && request.cancelCount == 0)
    }
    #expect(classWork.reasons == [.ownerGone])
    #expect(valueWork.reasons == [.ownerGone])
    #expect(item.isCancelled)
    #expect(request.cancelCount == 1)
  }

  /// Whether bags made with the process's switches keep call sites: with
  /// `AUTOCANCEL_CALL_SITES=1` (CI runs these tests so too).
  static var processKeepsCallSites: Bool {
    let probe = CancelBag()
    probe.add { _ in }
    return probe.snapshot().first?.callSite != nil
  }

  @Test(
    "records the line that bound the work as its call site",
    .enabled(if: processKeepsCallSites))
  func callSiteIsTheCallers() {
    let binder = makeBinder()
    let object = FakeObject()
    let line = #line + 1
    binder.bind(RecordingWork(), to: object)
    let site = binder.holder(for: object).cancelBag.snapshot().first?.callSite
    #expect(site == CallSite(fileID: #fileID, line: UInt(line)))
  }

  @Test("leaves work that finished before its object was released alone")
  func finishedWorkIsNotCancelled() {
    let done = RecordingWork()
    let running = RecordingWork()
    bindThenRelease(holding: 1) { binder, object in
      binder.bind(done, to: object).finish()
      binder.bind(running, to: object)
    }
    #expect(done.cancelCount == 0)
    #expect(running.reasons == [.ownerGone])
  }

  @Test(
    "lets finish-reporting work bound through the typed or the untyped form leave by itself",
    arguments: [false, true])
  func finishReportingWorkLeaves(untyped: Bool) {
    let binder = makeBinder()
    let object = FakeObject()
    let running = RecordingFinishingWork()
    binder.bind(running, to: object)
    for _ in 0..<10_000 {
      let request = RecordingFinishingWork()
      if untyped {
        binder.bindUntyped(request, to: object)
      } else {
        binder.bind(request, to: object)
      }
      request.complete()
    }
    let bag = binder.holder(for: object).cancelBag
    #expect(bag.count <= 64, "finished requests piled up: \(bag.count) held")
    bag.cancelAll()
    #expect(running.cancelCount == 1)
  }

  @Test("lets a Task bound to an object leave by itself once it completes")
  func taskLeaves() async {
    let binder = makeBinder()
    let object = FakeObject()
    let task = Task {}
    binder.bind(task, to: object)
    await task.value
    let bag = binder.holder(for: object).cancelBag
    await waitUntil("the completed task left the holder's bag") { bag.count == 0 }
  }

  @Test("holds an AutoCancellable given to the untyped form strongly, and cancels it")
  func untypedAutoCancellableIsHeldStrongly() {
    let cancels = Tally()
    bindThenRelease(holding: 1) { binder, object in
      binder.bindUntyped(ThinWrapper(cancels), to: object)
      #expect(binder.holder(for: object).cancelBag.snapshot().map(\.workType) == ["ThinWrapper"])
    }
    #expect(cancels.count == 1)
  }

  @Test("attaches nothing for a nil request")
  func nilRequestIsIgnored() {
    let binder = makeBinder()
    let object = FakeObject()
    binder.bindUntyped(nil, to: object)
    #expect(binder.store.attachCount == 0)
    #expect(binder.store.holder(of: object) == nil)
  }

  @Test(
    "stays consistent when threads bind, finish and drop work on one object at once",
    arguments: TestSeed.seeds([0x5EED_0001, 0xC0FF_EE42, 0xDEAD_BEEF]))
  func concurrentBindsStayConsistent(seed: UInt64) async {
    let binder = makeBinder()
    let owner = Owner()
    let binds = RandomBinds()
    await onThreads(4) { index in
      var random = SeededGenerator(seed: SeededGenerator.derive(seed, index))
      let object = owner.current
      for _ in 0..<2_000 {
        binds.bindOne(
          of: [.work, .finishedWork, .request, .droppedRequest], using: &random, with: binder,
          to: object)
      }
    }
    let context = TestSeed.describe(seed)
    #expect(binder.store.attachCount == 1, "\(context)")
    #expect(binds.deallocated.count == binds.dropped.count, "\(context)")
    let live = binds.inFlight.current.count + binds.requests.current.count
    // Read through a temporary: a holder kept in a local would outlive the release below.
    await waitUntil("only the live work is left, \(context)") {
      binder.holder(for: owner.current).cancelBag.count == live
    }

    owner.release()
    #expect(binds.inFlight.current.allSatisfy { $0.reasons == [.ownerGone] }, "\(context)")
    #expect(binds.finished.current.allSatisfy { $0.cancelCount == 0 }, "\(context)")
    #expect(binds.requests.current.allSatisfy { $0.cancelCount == 1 }, "\(context)")
  }
}
