import AutoCancelTestSupport
import SeededRandom
import Testing

@testable import AutoCancel

/// A key observer that records what it sends, and whether two sends ever overlapped.
private final class Recorder: Sendable {
  private let sent = Protected<[Bool]>([])
  private let finishes = Protected(0)
  private let inSend = Protected(false)
  private let overlapped = Protected(false)

  func observer() -> KeyObserver {
    KeyObserver(
      id: 0,
      send: { [self] value in
        let overlapping = inSend.withLock { inSend in
          defer { inSend = true }
          return inSend
        }
        if overlapping { overlapped.withLock { $0 = true } }
        sent.withLock { $0.append(value) }
        inSend.withLock { $0 = false }
      },
      finish: { [self] in finishes.withLock { $0 += 1 } })
  }

  var values: [Bool] { sent.current }
  var finishCount: Int { finishes.current }
  var sendsOverlapped: Bool { overlapped.current }
}

@Suite("A key's observer", timeLimit(minutes: 1))
struct KeyObserverTests {
  @Test("drops a change older than one it already has: the newest state is the last one sent")
  func dropsOlderChanges() {
    let recorder = Recorder()
    let observer = recorder.observer()
    observer.offer(isRunning: false, version: 2, ends: false)
    observer.offer(isRunning: true, version: 1, ends: false)
    #expect(recorder.values == [false])
    observer.offer(isRunning: true, version: 3, ends: false)
    #expect(recorder.values == [false, true])
  }

  @Test("never sends the same state twice in a row")
  func neverRepeatsAState() {
    let recorder = Recorder()
    let observer = recorder.observer()
    observer.offer(isRunning: true, version: 1, ends: false)
    observer.offer(isRunning: true, version: 2, ends: false)
    observer.offer(isRunning: false, version: 3, ends: false)
    observer.offer(isRunning: false, version: 4, ends: false)
    #expect(recorder.values == [true, false])
  }

  @Test("finishes once, after the newest state, and sends nothing after it or after stop")
  func finishesOnce() {
    let recorder = Recorder()
    let observer = recorder.observer()
    observer.offer(isRunning: true, version: 1, ends: false)
    observer.offer(isRunning: false, version: 2, ends: true)
    observer.offer(isRunning: true, version: 3, ends: true)
    #expect(recorder.values == [true, false])
    #expect(recorder.finishCount == 1)

    let stopped = Recorder()
    let stoppedObserver = stopped.observer()
    stoppedObserver.offer(isRunning: true, version: 1, ends: false)
    stoppedObserver.stop()
    stoppedObserver.offer(isRunning: false, version: 2, ends: true)
    #expect(stopped.values == [true])
    #expect(stopped.finishCount == 0)
  }

  @Test(
    "sends one state at a time, and ends on the newest, when threads offer changes in any order",
    arguments: TestSeed.seeds([0x5EED_00B1, 0x5EED_00B2]))
  func ordersConcurrentOffers(seed: UInt64) async {
    let recorder = Recorder()
    let observer = recorder.observer()
    let offers = StressScale.underSanitizer ? 2_000 : 20_000
    let threads = 4
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
    #expect(!recorder.sendsOverlapped, "\(TestSeed.describe(seed))")
    #expect(recorder.values.last == (offers % 2 == 1), "\(TestSeed.describe(seed))")
    #expect(zip(recorder.values, recorder.values.dropFirst()).allSatisfy { $0 != $1 })
  }
}
