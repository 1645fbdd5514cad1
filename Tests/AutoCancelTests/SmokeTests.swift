import AutoCancel
import Testing

final class Probe: AutoCancellable, @unchecked Sendable {
  var cancels = 0
  func cancel() { cancels += 1 }
}

@Test func smoke() async throws {
  let probe = Probe()
  do {
    let bag = CancelBag()
    let r = bag.add(probe)
    #expect(bag.count == 1)
    #expect(r.isActive)
    let p2 = Probe()
    bag.add(p2).finish()
    #expect(bag.count == 1)
    let t = bag.task { try await Task.sleep(nanoseconds: 10_000_000_000) }
    #expect(bag.count == 2)
    print(bag.debugDescription)
    _ = t
  }
  #expect(probe.cancels == 1)
}
