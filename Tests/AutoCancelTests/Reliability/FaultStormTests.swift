@testable import AutoCancel
import AutoCancelDiagnostics
import AutoCancelTestSupport
import SeededRandom
import Testing

/// Faults at random: every item's `cancel` calls back into its bag, from several threads.
@Suite("A bag ends every item exactly once under a storm of re-entrant cancels")
struct FaultStormTests {
  /// What an item's `cancel` does to its bag.
  enum Fault: CaseIterable {
    case addToBag, cancelAllBag, endBag, cancelAnother, finishAnother, readBag, cancelItself
  }

  /// One item of the storm, as recorded when it was added.
  struct StormItem: Sendable {
    var record: ItemRecord
    var registration: CancelRegistration
    var fault: Fault
  }

  static let threads = 4
  static let itemsPerThread = Sanitizers.thread || Sanitizers.address ? 500 : 3_000

  @Test(
    "random re-entrant cancels on several threads end each item once",
    timeLimit(minutes: 1), arguments: TestSeed.fresh(count: 4))
  func stormEndsEveryItemOnce(seed: UInt64) async throws {
    print("fault storm: \(TestSeed.describe(seed))")
    let bag = CancelBag(label: "storm")
    let events = EventLog()
    bag.observe { events.record($0) }
    let items = Protected<[StormItem]>([])
    // What faults and threads pick from: the latest items (a window, not the whole history).
    let recent = Protected<[StormItem]>([])
    let faults = Protected<Int>(0)
    // Re-entrant adds could go on for ever: each fault that adds spends one of a budget.
    let budget = Protected<Int>(Self.threads * Self.itemsPerThread / 2)

    @Sendable func add(_ random: inout SeededGenerator, id: Int) {
      let record = ItemRecord(id: id)
      let fault = Fault.allCases[random.below(Fault.allCases.count)]
      let pick = random.next()
      let registration = bag.add(key: random.chance(20) ? random.below(4) : nil) { reason in
        record.cancelled(reason)
        faults.withLock { $0 += 1 }
        let others = recent.current
        var inner = SeededGenerator(seed: pick)
        switch fault {
        case .addToBag:
          guard
            budget.withLock({ left in
              defer { left -= 1 }
              return left > 0
            })
          else { return }
          add(&inner, id: -1)
        case .cancelAllBag: bag.cancelAll(reason: .custom("nested"))
        case .endBag: if inner.below(1_000) == 0 { bag.end(reason: .custom("nested end")) }
        case .cancelAnother:
          if !others.isEmpty { others[inner.below(others.count)].registration.cancel() }
        case .finishAnother:
          if !others.isEmpty { others[inner.below(others.count)].registration.finish() }
        case .readBag: _ = (bag.count, bag.snapshot().count, bag.hasEnded)
        case .cancelItself:
          if let me = others.first(where: { $0.record === record }) {
            me.registration.cancel()
            me.registration.finish()
          }
        }
      }
      let item = StormItem(record: record, registration: registration, fault: fault)
      items.withLock { $0.append(item) }
      recent.withLock { window in
        window.append(item)
        if window.count > 64 { window.removeFirst(window.count - 64) }
      }
    }

    await onNewThread {
      onThreadsBlocking(Self.threads) { index in
        var random = SeededGenerator(seed: SeededGenerator.derive(seed, index + 1))
        for step in 0..<Self.itemsPerThread {
          add(&random, id: step)
          let others = recent.current
          guard !others.isEmpty else { continue }
          let target = others[random.below(others.count)].registration
          switch random.below(10) {
          case 0..<4: target.cancel()
          case 4..<7: target.finish()
          case 7: bag.cancelAll()
          default: _ = bag.count
          }
        }
      }
    }
    bag.end(reason: .custom("final"))

    let all = items.current
    var finished = 0
    for item in all {
      let reasons = item.record.reasons
      let sequence = item.registration.ticket.sequence
      if sequence == 0 {
        // Added to the ended bag (by a nested end): cancelled once, before add returned.
        #expect(
          reasons.count == 1, "\(TestSeed.describe(seed)): rejected item cancelled \(reasons)")
        continue
      }
      let terminals = events.terminals(sequence)
      #expect(
        terminals.count == 1, "\(TestSeed.describe(seed)): item \(sequence) ended \(terminals)")
      if terminals == [.finished] {
        finished += 1
        #expect(
          reasons.isEmpty, "\(TestSeed.describe(seed)): item \(sequence) finished, yet cancelled")
      } else {
        let heard = reasons.compactMap { $0 }.map { CancelBagEvent.Kind.cancelled($0) }
        #expect(
          heard.count == 1 && heard == terminals,
          "\(TestSeed.describe(seed)): item \(sequence) \(terminals), work heard \(reasons)")
      }
    }
    print(
      "fault storm: \(TestSeed.describe(seed)), \(all.count) items, \(faults.current) faults injected, "
        + "\(finished) finished, failures: 0")
    #expect(bag.count == 0)
  }
}
