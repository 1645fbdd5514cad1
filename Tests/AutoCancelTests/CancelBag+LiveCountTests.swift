import AutoCancel
import AutoCancelTestSupport
import Dispatch
import SeededRandom
import Testing

@Suite("Counting live bags by label")
struct CancelBagLiveCountTests {
  @Test("counts bags with a label until they are deinitialized")
  func countsUntilDeinit() {
    let label = "live-count-basic"
    var first: CancelBag? = CancelBag(label: label)
    var second: CancelBag? = CancelBag(label: label)
    #expect(CancelBag.liveCount(label: label) == 2)
    #expect(CancelBag.liveCountsByLabel[label] == 2)
    first = nil
    #expect(CancelBag.liveCount(label: label) == 1)
    withExtendedLifetime(second) {}
    second = nil
    #expect(CancelBag.liveCount(label: label) == 0)
    #expect(CancelBag.liveCountsByLabel[label] == nil)
    _ = (first, second)
  }

  @Test("counts a bag that ended until it is deinitialized, and child bags by their own label")
  func endedAndChildBags() {
    let parentLabel = "live-count-parent"
    let childLabel = "live-count-child"
    do {
      let parent = CancelBag(label: parentLabel)
      let child = CancelBag(parent: parent, label: childLabel)
      parent.end()
      #expect(child.hasEnded)
      #expect(CancelBag.liveCount(label: parentLabel) == 1)
      #expect(CancelBag.liveCount(label: childLabel) == 1)
    }
    #expect(CancelBag.liveCount(label: parentLabel) == 0)
    #expect(CancelBag.liveCount(label: childLabel) == 0)
  }

  @Test("ends at zero after bags are made and released on many threads")
  func concurrentBags() {
    let seed = TestSeed.fresh()
    var generator = SeededGenerator(seed: seed)
    let labels = (0..<5).map { "live-count-race-\($0)" }
    let plan = (0..<400).map { _ in labels[generator.below(labels.count)] }
    let alive = Protected<[CancelBag]>([])
    DispatchQueue.concurrentPerform(iterations: plan.count) { index in
      let bag = CancelBag(label: plan[index])
      alive.withLock { $0.append(bag) }
    }
    for label in labels {
      #expect(
        CancelBag.liveCount(label: label) == plan.filter { $0 == label }.count,
        "\(TestSeed.describe(seed))")
    }
    DispatchQueue.concurrentPerform(iterations: plan.count) { _ in
      _ = alive.withLock { $0.popLast() }
    }
    for label in labels {
      #expect(CancelBag.liveCount(label: label) == 0, "\(TestSeed.describe(seed))")
    }
  }
}
