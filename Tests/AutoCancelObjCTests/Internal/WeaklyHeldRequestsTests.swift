import AutoCancel
import AutoCancelTestSupport
import Testing

@testable import AutoCancelObjC
import SeededRandom

@Suite("Weakly held requests", timeLimit(minutes: 1))
struct WeaklyHeldRequestsTests {
  @Test("do not keep a request alive")
  func requestIsHeldWeakly() {
    let holder = DeallocHolder()
    let deallocated = Tally()
    holder.autoCancelUntyped(
      RespondingRequest { deallocated.increment() }, canceller: TestCanceller())
    #expect(deallocated.count == 1)
    #expect(holder.untypedRequests.count == 1)  // a gone box, until the next sweep
  }

  @Test(
    "stay bounded when 10,000 requests that finished are bound to one object",
    arguments: TestSeed.seeds([0x5EED_0001, 0xC0FF_EE42, 0xDEAD_BEEF]))
  func finishedRequestsDoNotAccumulate(seed: UInt64) {
    var random = SeededGenerator(seed: seed)
    var holder: DeallocHolder? = DeallocHolder()
    var alive: [RespondingRequest] = []
    let binds = 10_000
    for _ in 0..<binds {
      let request = RespondingRequest()
      holder!.autoCancelUntyped(request, canceller: TestCanceller())
      // About one in a hundred is still in flight; the others finished and were released.
      if random.below(100) == 0 { alive.append(request) }
    }
    let context = "\(TestSeed.describe(seed)), \(alive.count) alive"
    let bound = max(WeaklyHeldRequests.minimumSweepThreshold, 2 * alive.count)
    #expect(holder!.untypedRequests.count < bound, "\(context)")
    #expect(holder!.cancelBag.count < bound, "\(context)")
    #expect(holder!.untypedRequests.examined <= 2 * binds, "\(context)")

    holder = nil
    #expect(alive.allSatisfy { $0.cancelCount == 1 }, "\(context)")
  }

  @Test("sweep only when the boxes have doubled since the last sweep, never on every add")
  func sweepsWhenTheCountDoubles() {
    let holder = DeallocHolder()
    let threshold = WeaklyHeldRequests.minimumSweepThreshold
    var alive: [RespondingRequest] = []
    func bindLive(_ count: Int) {
      for _ in 0..<count {
        let request = RespondingRequest()
        alive.append(request)
        holder.autoCancelUntyped(request, canceller: TestCanceller())
      }
    }
    bindLive(threshold - 1)
    #expect(holder.untypedRequests.examined == 0)
    bindLive(1)  // reaches the threshold: one sweep of every box, all alive
    #expect(holder.untypedRequests.examined == threshold)
    bindLive(threshold - 1)  // below twice what the sweep kept
    #expect(holder.untypedRequests.examined == threshold)
    bindLive(1)
    #expect(holder.untypedRequests.examined == threshold + 2 * threshold)
    #expect(holder.untypedRequests.count == 2 * threshold)
  }

  @Test("cancel a live request only if it responds to cancel")
  func onlyRespondingRequestsAreCancelled() {
    var holder: DeallocHolder? = DeallocHolder()
    let responding = RespondingRequest()
    let mute = MuteRequest()
    holder!.autoCancelUntyped(responding, canceller: TestCanceller())
    holder!.autoCancelUntyped(mute, canceller: TestCanceller())
    #expect(holder!.cancelBag.count == 2)
    holder = nil
    #expect(responding.cancelCount == 1)
    withExtendedLifetime(mute) {}
  }
}
