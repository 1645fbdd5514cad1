import AutoCancelTestSupport
import AutoCancel
import AutoCancelDiagnostics
import Dispatch
import Foundation
import SeededRandom
import Testing

/// The item a stress thread is finishing right now: a thread-local marker that lets a work
/// item tell, when it is released, whether a `finish()` released it.
private enum FinishingItem {
  @TaskLocal static var id: Int?
}

/// What happened to each item of a round, recorded by the items themselves.
private final class Ledger: Sendable {
  struct Entry {
    var finishRequested = false
    var cancels = 0
    var released = false
    var releasedByFinish = false
    /// What the bag's observers heard: `.finished`, `.cancelled` and `.failed` events of this
    /// item (work of a round never throws, so never the last).
    var finishedEvents = 0
    var cancelledEvents = 0
    var failedEvents = 0
  }

  private let entries = Protected<[Entry]>([])

  func newItem() -> Int {
    entries.withLock { entries in
      entries.append(Entry())
      return entries.count - 1
    }
  }

  func requestFinish(_ id: Int) { entries.withLock { $0[id].finishRequested = true } }
  func cancelled(_ id: Int) { entries.withLock { $0[id].cancels += 1 } }

  func released(_ id: Int, byFinish: Bool) {
    entries.withLock { entries in
      entries[id].released = true
      entries[id].releasedByFinish = byFinish
    }
  }

  /// Records an event of the bag's observer; items are labelled with their ledger id.
  func heard(_ event: CancelBagEvent) {
    guard let label = event.item.label, let id = Int(label) else { return }
    entries.withLock { entries in
      switch event.kind {
      case .registered: break
      case .finished: entries[id].finishedEvents += 1
      case .cancelled: entries[id].cancelledEvents += 1
      case .failed: entries[id].failedEvents += 1
      }
    }
  }

  /// A new bag whose observer reports to this ledger.
  func makeBag() -> CancelBag {
    let bag = CancelBag()
    bag.observe { [self] event in heard(event) }
    return bag
  }

  var all: [Entry] { entries.current }
}

/// Work whose every cancel and whose release go to the ledger.
///
/// The bag is the only owner of a `StressWork`: a `finish()` that takes effect releases it
/// inside that call, on that thread; a cancel always comes before the release. Some items
/// call back into a bag from `cancel()` (`onCancel`), as real work does.
private final class StressWork: AutoCancellable, Sendable {
  let id: Int
  let ledger: Ledger
  let onCancel: (@Sendable () -> Void)?

  init(id: Int, ledger: Ledger, onCancel: (@Sendable () -> Void)? = nil) {
    self.id = id
    self.ledger = ledger
    self.onCancel = onCancel
  }

  func cancel() {
    ledger.cancelled(id)
    onCancel?()
  }

  deinit { ledger.released(id, byFinish: FinishingItem.id == id) }
}

/// Finishes `item`, marking the thread so that the item's release can tell it was this call.
private func finish(_ item: (id: Int, registration: CancelRegistration), ledger: Ledger) {
  ledger.requestFinish(item.id)
  FinishingItem.$id.withValue(item.id) { item.registration.finish() }
}

@Suite("A CancelBag under concurrent stress", .serialized, timeLimit(minutes: 1))
struct CancelBagStressTests {
  static let threads = 4
  static let stepsPerThread = StressScale.underSanitizer ? 2_000 : 5_000
  static let bagCount = 3
  static let poolSize = 64

  private typealias Registered = (id: Int, registration: CancelRegistration)

  @Test(
    "ends every item exactly once, as observers also see, while threads add, finish, cancel, cancel all and drop bags",
    arguments: TestSeed.seeds([0x5EED_0001, 0xC0FF_EE42, 0xDEAD_BEEF, 0x0BAD_CAFE]))
  func exactlyOnceUnderStress(seed: UInt64) async {
    print("CancelBagStressTests: \(TestSeed.describe(seed))")
    let ledger = Ledger()
    let bags = Protected<[CancelBag]>((0..<Self.bagCount).map { _ in ledger.makeBag() })
    let pool = Protected<[Registered]>([])
    let everything = Protected<[Registered]>([])

    // Threads of their own, not the cooperative pool: a long synchronous run there would hold
    // up every async test running alongside.
    await onThreads(Self.threads) { thread in
      var random = SeededGenerator(seed: seed &+ UInt64(thread) &* 0x9E37_79B9_7F4A_7C15)
      var all: [Registered] = []
      var recent: [Registered] = []

      func pick() -> Registered? {
        if random.next() % 3 == 0 {
          return pool.withLock { pool in
            pool.isEmpty ? nil : pool[Int(random.next() % UInt64(pool.count))]
          }
        }
        return recent.isEmpty ? nil : recent[Int(random.next() % UInt64(recent.count))]
      }
      func someBag() -> CancelBag {
        bags.withLock { $0[Int(random.next() % UInt64(Self.bagCount))] }
      }

      for _ in 0..<Self.stepsPerThread {
        let roll = random.next() % 100
        switch roll {
        case 0..<40:
          let id = ledger.newItem()
          let key: Int? = roll < 4 ? Int(random.next() % 4) : nil
          // One item in eight finishes another item from inside its cancel().
          var onCancel: (@Sendable () -> Void)?
          if roll % 8 == 0, let victim = pick() {
            onCancel = { finish(victim, ledger: ledger) }
          }
          let work = StressWork(id: id, ledger: ledger, onCancel: onCancel)
          let registered = (id, someBag().add(work, key: key, label: String(id)))
          all.append(registered)
          recent.append(registered)
          if recent.count > 16 { recent.removeFirst() }
          pool.withLock { pool in
            if pool.count < Self.poolSize {
              pool.append(registered)
            } else {
              pool[Int(random.next() % UInt64(Self.poolSize))] = registered
            }
          }
        case 40..<80:
          if let item = pick() { finish(item, ledger: ledger) }
        case 80..<88:
          pick()?.registration.cancel(reason: .custom("single"))
        case 88..<91:
          someBag().cancelAll(reason: .custom("all"))
        case 91..<93:
          // Drop a bag: its deinit runs on whichever thread lets go of it last.
          let index = Int(random.next() % UInt64(Self.bagCount))
          let dropped = bags.withLock { bags in
            defer { bags[index] = ledger.makeBag() }
            return bags[index]
          }
          _ = dropped
        case 93..<94:
          someBag().end(reason: .custom("ended"))
        default:
          _ = someBag().count
          _ = pick()?.registration.isActive
        }
      }
      everything.withLock { $0.append(contentsOf: all) }
    }

    // The round is over: let every bag go, which ends it.
    bags.withLock { $0 = [] }

    let entries = ledger.all
    let registrations = everything.current
    #expect(registrations.count == entries.count, "\(TestSeed.describe(seed))")
    var problems: [String] = []
    for (id, entry) in entries.enumerated() {
      // The bag's own event says whether an item finished: where its last release happens
      // cannot, since the thread that added it holds it until `add` returns, and a finish on
      // another thread may come first.
      let finished = entry.finishedEvents == 1
      let cancelled = entry.cancels == 1
      if entry.cancels > 1 { problems.append("item \(id) cancelled \(entry.cancels) times") }
      if !entry.released { problems.append("item \(id) is still held after its bag ended") }
      if finished && entry.cancels > 0 { problems.append("item \(id) finished and cancelled") }
      if !finished && !cancelled { problems.append("item \(id) neither finished nor cancelled") }
      if finished && !entry.finishRequested { problems.append("item \(id) finished by itself") }
      // One event at most (none when added to a bag that had ended), of the kind the item
      // itself saw.
      if entry.finishedEvents + entry.cancelledEvents > 1 {
        problems.append(
          "item \(id) reported ended \(entry.finishedEvents + entry.cancelledEvents) times")
      }
      if entry.failedEvents > 0 { problems.append("item \(id) reported failed") }
      if entry.cancelledEvents == 1 && !cancelled {
        problems.append("item \(id) reported cancelled but was not")
      }
      if entry.releasedByFinish && !finished {
        problems.append("item \(id) released by a finish that observers did not report")
      }
    }
    if registrations.contains(where: \.registration.isActive) {
      problems.append("a registration is still active after every bag ended")
    }
    let finishedCount = entries.filter { $0.finishedEvents == 1 }.count
    print(
      "CancelBagStressTests seed 0x\(String(seed, radix: 16)): \(entries.count) items,",
      "\(finishedCount) finished, \(entries.count - finishedCount) cancelled")
    #expect(entries.count > 1000, "\(TestSeed.describe(seed))")
    #expect(finishedCount > 0 && finishedCount < entries.count, "\(TestSeed.describe(seed))")
    #expect(problems.isEmpty, "\(TestSeed.describe(seed)): \(problems.prefix(10))")
  }
}
