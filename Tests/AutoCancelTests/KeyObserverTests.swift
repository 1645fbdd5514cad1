import AutoCancelTestSupport
import SeededRandom
import Testing

@testable import AutoCancel

/// An observer offered `isRunning` as the key's first state, and whose reader has read it.
private func observerHavingRead(
  _ isRunning: Bool, sourceLocation: SourceLocation = #_sourceLocation
) async -> KeyObserver {
  let observer = KeyObserver(id: 0)
  observer.offer(isRunning: isRunning, version: 1, ends: false)
  #expect(await observer.next() == isRunning, sourceLocation: sourceLocation)
  return observer
}

@Suite("A key's observer", timeLimit(minutes: 1))
struct KeyObserverTests {
  @Test("drops a change older than one it already has: the newest state is the one read")
  func dropsOlderChanges() async {
    let observer = KeyObserver(id: 0)
    observer.offer(isRunning: false, version: 2, ends: false)
    observer.offer(isRunning: true, version: 1, ends: false)
    #expect(await observer.next() == false)
    observer.offer(isRunning: true, version: 3, ends: false)
    #expect(await observer.next() == true)
  }

  @Test("never hands the same state twice in a row, however many changes pass between reads")
  func neverRepeatsAState() async {
    let observer = await observerHavingRead(true)
    // Two changes while the reader is away bring the key back to what it read last: nothing
    // to hand. The next change is the next value read.
    observer.offer(isRunning: false, version: 2, ends: false)
    observer.offer(isRunning: true, version: 3, ends: false)
    observer.offer(isRunning: false, version: 4, ends: false)
    #expect(await observer.next() == false)
  }

  @Test("ends after the newest state, once, and hands nothing after it or after stop")
  func endsOnce() async {
    let observer = KeyObserver(id: 0)
    observer.offer(isRunning: true, version: 1, ends: false)
    observer.offer(isRunning: false, version: 2, ends: true)
    observer.offer(isRunning: true, version: 3, ends: true)
    #expect(await observer.next() == true)
    #expect(await observer.next() == nil)
    #expect(await observer.next() == nil)

    let stopped = KeyObserver(id: 0)
    stopped.offer(isRunning: true, version: 1, ends: false)
    stopped.stop()
    stopped.offer(isRunning: false, version: 2, ends: true)
    #expect(await stopped.next() == nil)
  }

  @Test("a waiting read returns nil when the reader stops")
  func stopEndsAWaitingRead() async {
    let observer = await observerHavingRead(false)
    let read = Task { await observer.next() }
    // Offered the state already read: the read keeps waiting until the stop.
    observer.offer(isRunning: false, version: 2, ends: false)
    observer.stop()
    #expect(await read.value == nil)
  }

  @Test(
    "hands alternating states, and ends on the newest, while threads offer changes in any order",
    arguments: TestSeed.seeds([0x5EED_00B1, 0x5EED_00B2]))
  func ordersConcurrentOffers(seed: UInt64) async {
    let observer = KeyObserver(id: 0)
    let offers = StressScale.underSanitizer ? 2_000 : 20_000
    let threads = 4
    let reader = Task {
      var values: [Bool] = []
      while let value = await observer.next() { values.append(value) }
      return values
    }
    // Thread `index` offers versions index + 1, index + 5, ... in a shuffled order: the state
    // alternates with the version, and the newest is the highest version's.
    await onThreads(threads) { index in
      var random = SeededGenerator(seed: SeededGenerator.derive(seed, index + 1))
      var versions = Array(stride(from: index + 1, through: offers, by: threads))
      versions.shuffle(using: &random)
      for version in versions {
        observer.offer(isRunning: version % 2 == 1, version: UInt64(version), ends: false)
      }
    }
    let last = offers % 2 == 1
    observer.offer(isRunning: last, version: UInt64(offers + 1), ends: true)
    let values = await reader.value
    #expect(values.last == last, "\(TestSeed.describe(seed))")
    #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 }, "\(TestSeed.describe(seed))")
  }
}
