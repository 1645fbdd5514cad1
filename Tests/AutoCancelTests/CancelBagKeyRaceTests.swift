import AutoCancelTestSupport
@testable import AutoCancel
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
