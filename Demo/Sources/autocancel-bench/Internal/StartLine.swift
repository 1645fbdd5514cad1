#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Holds threads until all of them have arrived, then lets them go together; the clock of
/// the measured region starts when the last one arrives, so thread start-up is not timed.
///
/// Safety: `arrived` and `clock` are only touched with `mutex` held.
final class StartLine: @unchecked Sendable {
  private let mutex = PthreadMutex()
  private let parties: Int
  private var arrived = 0
  private var clock: Stopwatch?

  init(parties: Int) { self.parties = parties }

  /// Arrives, then waits (yielding the CPU) until every party has arrived.
  func arriveAndWait() {
    mutex.lock()
    arrived += 1
    if arrived == parties { clock = Stopwatch() }
    mutex.unlock()
    while true {
      mutex.lock()
      let everyone = arrived >= parties
      mutex.unlock()
      if everyone { return }
      sched_yield()
    }
  }

  /// Nanoseconds since the last party arrived (0 if not all have).
  var elapsedNanoseconds: Double {
    mutex.lock()
    defer { mutex.unlock() }
    return clock?.elapsedNanoseconds ?? 0
  }
}
