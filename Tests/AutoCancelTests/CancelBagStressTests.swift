import AutoCancel
import Dispatch
import Foundation
import Testing

/// The seeds of the stress rounds: a fixed list, or the one in `AUTOCANCEL_SEED` (decimal or
/// `0x` hex) to replay a failure. Each thread's operations follow from the seed; the
/// interleaving of threads is up to the machine.
enum StressSeeds {
  static let fixed: [UInt64] = [0x5EED_0001, 0xC0FF_EE42, 0xDEAD_BEEF, 0x0BAD_CAFE]

  static var all: [UInt64] {
    guard let text = ProcessInfo.processInfo.environment["AUTOCANCEL_SEED"] else { return fixed }
    let seed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    return seed.map { [$0] } ?? fixed
  }
}

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

  var all: [Entry] { entries.current }
}

/// Work whose every cancel and whose release go to the ledger.
///
/// The bag is the only owner of a `StressWork`: a `finish()` that takes effect releases it
/// inside that call, on that thread; a cancel always comes before the release.
private final class StressWork: AutoCancellable, Sendable {
  let id: Int
  let ledger: Ledger

  init(id: Int, ledger: Ledger) {
    self.id = id
    self.ledger = ledger
  }

  func cancel() { ledger.cancelled(id) }

  deinit { ledger.released(id, byFinish: FinishingItem.id == id) }
}

@Suite("A CancelBag under concurrent stress", .serialized, .timeLimit(.minutes(1)))
struct CancelBagStressTests {
  static let threads = 4
  static let stepsPerThread = StressScale.underThreadSanitizer ? 1_500 : 4_000
  static let bagCount = 3
  static let poolSize = 64

  private struct Registered {
    var id: Int
    var registration: CancelRegistration
  }

  @Test(
    "ends every item exactly once while threads add, finish, cancel, cancel all and drop bags",
    arguments: StressSeeds.all)
  func exactlyOnceUnderStress(seed: UInt64) {
    print("CancelBagStressTests seed: 0x\(String(seed, radix: 16)) (replay: AUTOCANCEL_SEED)")
    let ledger = Ledger()
    let bags = Protected<[CancelBag]>((0..<Self.bagCount).map { _ in CancelBag() })
    let pool = Protected<[Registered]>([])
    let everything = Protected<[Registered]>([])

    DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
      var random = SplitMix64(seed: seed &+ UInt64(thread) &* 0x9E37_79B9_7F4A_7C15)
      var mine: [Registered] = []
      mine.reserveCapacity(Self.stepsPerThread)

      func pick() -> Registered? {
        if random.next() % 4 == 0 {
          return pool.withLock { pool in
            pool.isEmpty ? nil : pool[Int(random.next() % UInt64(pool.count))]
          }
        }
        return mine.isEmpty ? nil : mine[Int(random.next() % UInt64(mine.count))]
      }
      func someBag() -> CancelBag {
        bags.withLock { $0[Int(random.next() % UInt64(Self.bagCount))] }
      }

      for _ in 0..<Self.stepsPerThread {
        let roll = random.next() % 100
        switch roll {
        case 0..<40:
          let id = ledger.newItem()
          let key: Int? = roll < 6 ? Int(random.next() % 4) : nil
          let registration = someBag().add(StressWork(id: id, ledger: ledger), key: key)
          let registered = Registered(id: id, registration: registration)
          mine.append(registered)
          pool.withLock { pool in
            if pool.count < Self.poolSize {
              pool.append(registered)
            } else {
              pool[Int(random.next() % UInt64(Self.poolSize))] = registered
            }
          }
        case 40..<65:
          guard let item = pick() else { continue }
          ledger.requestFinish(item.id)
          FinishingItem.$id.withValue(item.id) { item.registration.finish() }
        case 65..<78:
          pick()?.registration.cancel(reason: .custom("single"))
        case 78..<88:
          someBag().cancelAll(reason: .custom("all"))
        case 88..<93:
          // Drop a bag: its deinit runs on whichever thread lets go of it last.
          let index = Int(random.next() % UInt64(Self.bagCount))
          let dropped = bags.withLock { bags in
            defer { bags[index] = CancelBag() }
            return bags[index]
          }
          _ = dropped
        case 93..<96:
          someBag().end(reason: .custom("ended"))
        default:
          _ = someBag().count
          _ = pick()?.registration.isActive
        }
      }
      everything.withLock { $0.append(contentsOf: mine) }
    }

    // The round is over: let every bag go, which ends it.
    bags.withLock { $0 = [] }

    let entries = ledger.all
    let registrations = everything.current
    #expect(registrations.count == entries.count)
    var problems: [String] = []
    for (id, entry) in entries.enumerated() {
      let finished = entry.releasedByFinish
      let cancelled = entry.cancels == 1
      if entry.cancels > 1 { problems.append("item \(id) cancelled \(entry.cancels) times") }
      if !entry.released { problems.append("item \(id) is still held after its bag ended") }
      if finished && entry.cancels > 0 { problems.append("item \(id) finished and cancelled") }
      if !finished && !cancelled { problems.append("item \(id) neither finished nor cancelled") }
      if finished && !entry.finishRequested { problems.append("item \(id) finished by itself") }
    }
    if registrations.contains(where: \.registration.isActive) {
      problems.append("a registration is still active after every bag ended")
    }
    let finishedCount = entries.filter(\.releasedByFinish).count
    print(
      "CancelBagStressTests seed 0x\(String(seed, radix: 16)): \(entries.count) items,",
      "\(finishedCount) finished, \(entries.count - finishedCount) cancelled")
    #expect(entries.count > 1000)
    #expect(finishedCount > 0 && finishedCount < entries.count)
    #expect(problems.isEmpty, "seed 0x\(String(seed, radix: 16)): \(problems.prefix(10))")
  }
}
