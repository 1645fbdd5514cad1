import AutoCancelTestSupport
import Testing

@testable import AutoCancel

@Suite("A value behind the core's lock", timeLimit(minutes: 1))
struct LockedTests {

  @Test("lets one thread at a time change it, and wakes every thread that waited for it")
  func oneThreadAtATime() async {
    let threads = 4
    let rounds = 200_000
    let value = Locked(0)
    let finished = Gate()
    Task {
      await onThreads(threads) { _ in
        for _ in 0..<rounds {
          // A read, then a write: a second thread inside at the same time would lose a count.
          value.withLock { $0 += 1 }
        }
      }
      finished.open()
    }
    // A thread that slept waiting for the lock and was never woken would stop this here.
    await finished.wait()
    #expect(value.withLock { $0 } == threads * rounds)
  }
}
