import AutoCancel
import AutoCancelTestSupport
import SeededRandom
import Testing

@testable import AutoCancelObjC

@Suite("An untyped request bound to an object", timeLimit(minutes: 1))
struct WeakRequestTests {
  @Test("is not kept alive, and leaves the holder's bag soon after it is gone")
  func requestIsHeldWeaklyAndLeaves() async {
    let binder = makeBinder()
    let object = FakeObject()
    let deallocated = Tally()
    binder.bindUntyped(RespondingRequest { deallocated.increment() }, to: object)
    #expect(deallocated.count == 1)
    let bag = binder.holder(for: object).cancelBag
    await waitUntil("the gone request left the holder's bag") { bag.count == 0 }
  }

  @Test(
    "leaves nothing behind after a burst of 10,000 that finished, with no later bind",
    arguments: TestSeed.seeds([0x5EED_0001, 0xC0FF_EE42, 0xDEAD_BEEF]))
  func finishedBurstLeaves(seed: UInt64) async {
    var random = SeededGenerator(seed: seed)
    let binder = makeBinder()
    var object: FakeObject? = FakeObject()
    var alive: [RespondingRequest] = []
    for _ in 0..<10_000 {
      let request = RespondingRequest()
      binder.bindUntyped(request, to: object!)
      // About one in a hundred is still in flight; the others finished and were released.
      if random.below(100) == 0 { alive.append(request) }
    }
    let context = "\(TestSeed.describe(seed)), \(alive.count) alive"
    let live = alive.count
    // Read through a temporary: a bag kept in a local would outlive the release below.
    await waitUntil("only the live requests are left, \(context)") {
      binder.holder(for: object!).cancelBag.count == live
    }

    object = nil
    #expect(alive.allSatisfy { $0.cancelCount == 1 }, "\(context)")
  }

  @Test("is cancelled when its object goes only if it responds to cancel")
  func onlyRespondingRequestsAreCancelled() {
    let responding = RespondingRequest()
    let mute = MuteRequest()
    bindThenRelease(holding: 2) { binder, object in
      binder.bindUntyped(responding, to: object)
      binder.bindUntyped(mute, to: object)
    }
    #expect(responding.cancelCount == 1)
    withExtendedLifetime(mute) {}
  }
}
